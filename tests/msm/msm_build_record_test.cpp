// The ledger's msm_builds payload (src/trails/msm/msm_build_record.h, docs/file-formats.md
// "msm_builds"): the bytes the writer produces for hand-made builds are pinned, because ledgers and
// `trails export` outputs are compared by hash across Trails versions.
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>

#include "trails/msm/msm_stage.h"

namespace trails::msm {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Every payload field set, with a NaN and an infinity where the writer writes null, lags whose
// text order differs from their numeric order (10 < 2 as text), and doubles that need all their
// digits; the fields that are not part of the payload hold values that must not show.
MsmBuild full_build() {
  MsmBuild b;
  b.iteration = 12;
  b.frames = 4800;
  b.refit = true;
  b.lag = 2;
  b.n_microstates = 4;
  b.active_set = {0, 1, 3};
  b.pi = {0.5, 1.0 / 3.0, 1.0 / 6.0};
  b.T.resize(3, 3);
  b.T << 0.9, 0.07, 0.03, 0.1, 0.8, 0.1, 0.09, 0.2, 0.71;
  b.C.resize(3, 3);
  b.C << 900, 70, 30, 33, 264, 33, 15, 33.5, 118.25;
  b.timescales = {41.25, kInf};
  b.bayesian = true;
  b.timescale_errors = {3.5, kNaN};
  b.n_metastable = 2;
  b.memberships.resize(3, 2);
  b.memberships << 1.0, 0.0, 0.75, 0.25, 0.125, 0.875;
  b.metastable_assignments = {0, 0, 1};
  b.metastable_populations = {5.0 / 6.0, 1.0 / 6.0};
  b.crispness = 0.8125;
  b.vamp2 = 2.0625;
  b.its_lags = {1, 10, 2};
  b.its = {{30.5, 4.25}, {kNaN, kNaN}, {41.25, kInf}};
  b.mle_converged = false;
  b.min_segment = 30;
  b.note = "";
  b.build_s = 0.123;
  auto clustering = std::make_shared<analysis::ClusterModel>();
  clustering->centres.resize(4, 2);
  clustering->centres << -0.5, 1.5, 0.25, 0.5, 0.75, 0.0, 1e-7, -2.0;
  b.clustering = clustering;
  b.clustering_version = 9;
  b.counts_per_state = {1000, 330, 166.75};
  b.eigenvectors = Eigen::MatrixXd::Ones(3, 2);
  b.lag_guard_ok = false;
  b.criteria_met = true;
  b.criteria = "implied_timescales: max relative change 0.01 < 0.1; vamp2: baseline";
  b.streak = 2;
  b.converged = true;
  b.reason = "MSM convergence: criteria (all) satisfied for 2 consecutive build(s). [x]";
  return b;
}

// A build without a model: every optional key null, the estimator mle.
MsmBuild empty_build() {
  MsmBuild b;
  b.iteration = 3;
  b.frames = 40;
  b.lag = 5;
  b.n_microstates = 2;
  b.active_set = {1};
  b.note = "fewer than 2 states in the largest strongly connected set";
  b.n_metastable = 0;
  b.its_lags = {5};
  b.its = {{kNaN}};
  b.streak = 0;
  return b;
}

// The writer's bytes as of record version 1 (MsmBuild::to_json before MsmBuildRecord existed).
constexpr const char* kFullJson =
    R"({"active_set":[0,1,3],"cluster_centers":[-0.5,1.5,0.25,0.5,0.75,0.0,1e-07,-2.0],)"
    R"("converged":true,"count_matrix":[[900.0,70.0,30.0],[33.0,264.0,33.0],[15.0,33.5,118.25]],)"
    R"("criteria":"implied_timescales: max relative change 0.01 < 0.1; vamp2: baseline",)"
    R"("criteria_met":true,"estimator":"bayesian","frames":4800,"iteration":12,)"
    R"("its":{"1":[30.5,4.25],"10":[null,null],"2":[41.25,null]},"lag_guard_ok":false,)"
    R"("lagtime":2,"metastable_assignments":[0,0,1],)"
    R"("metastable_memberships":[[1.0,0.0],[0.75,0.25],[0.125,0.875]],)"
    R"("metastable_populations":[0.8333333333333334,0.16666666666666666],"min_segment":30,)"
    R"("mle_converged":false,"n_active":3,"n_metastable":2,"n_microstates":4,"note":"",)"
    R"("pcca_crispness":0.8125,"reason":"MSM convergence: criteria (all) satisfied for 2 )"
    R"(consecutive build(s). [x]","record_version":1,"refit":true,)"
    R"("stationary_distribution":[0.5,0.3333333333333333,0.16666666666666666],"streak":2,)"
    R"("timescale_errors":[3.5,null],"timescales":[41.25,null],)"
    R"("transition_matrix":[[0.9,0.07,0.03],[0.1,0.8,0.1],[0.09,0.2,0.71]],"vamp2":2.0625})";

constexpr const char* kEmptyJson =
    R"({"active_set":[1],"cluster_centers":null,"converged":false,"count_matrix":[],)"
    R"("criteria":"","criteria_met":false,"estimator":"mle","frames":40,"iteration":3,)"
    R"("its":{"5":[null]},"lag_guard_ok":true,"lagtime":5,"metastable_assignments":null,)"
    R"("metastable_memberships":null,"metastable_populations":null,"min_segment":0,)"
    R"("mle_converged":true,"n_active":1,"n_metastable":null,"n_microstates":2,)"
    R"("note":"fewer than 2 states in the largest strongly connected set",)"
    R"("pcca_crispness":null,"reason":"","record_version":1,"refit":false,)"
    R"("stationary_distribution":[],"streak":0,"timescale_errors":null,"timescales":[],)"
    R"("transition_matrix":[],"vamp2":null})";

TEST(MsmBuildRecord, WriterBytesOfAFullBuildAreVersionOnes) {
  EXPECT_EQ(full_build().to_json().dump(), kFullJson);
}

TEST(MsmBuildRecord, WriterBytesOfABuildWithoutAModelAreVersionOnes) {
  EXPECT_EQ(empty_build().to_json().dump(), kEmptyJson);
}

}  // namespace
}  // namespace trails::msm
