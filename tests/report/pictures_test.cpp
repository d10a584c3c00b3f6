// Known answers behind the pictures of docs/report.md: CV axis names and units from a run's
// recorded definitions (cv_axes.h), the physical time of frames and the readable unit a picture
// uses (time_axis.h), and the MSM network's numbers — coarse transition matrix, populations and
// MFPTs between the sets — on a hand-built three-state chain whose answers are closed-form.
// The pictures themselves are checked by tests/scripts/pictures.sh.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "trails/core/error.h"
#include "trails/report/common/cv_axes.h"
#include "trails/report/common/time_axis.h"
#include "trails/report/msm/msm_network.h"
#include "trails/report/swarm/swarm_outputs.h"

using namespace trails;
using nlohmann::json;
using report::cv_axis;
using report::cv_axis_label;

namespace {
const json kMolecular = {{"molecular", true}, {"time_unit", "ps"}, {"length_unit", "nm"}};
const json kBuiltin = {{"molecular", false}, {"time_unit", "reduced"}, {"length_unit", "reduced"}};
}  // namespace

TEST(CvAxes, BuiltinCoordinatesInReducedUnits) {
  const json config = {{"space_mode", "fixed"}, {"cvs", nullptr}};
  EXPECT_EQ(cv_axis_label(config, kBuiltin, 0, 2), "x (reduced units)");
  EXPECT_EQ(cv_axis_label(config, kBuiltin, 1, 2), "y (reduced units)");
  EXPECT_EQ(cv_axis_label(config, kBuiltin, 0, 1), "x (reduced units)");
}

TEST(CvAxes, RecordedColumnNamesAreTheNamesEverywhere) {
  // One naming rule: the names `trails export --cv-names` writes (engine_system.cv_names) name
  // the axes; the unit still comes from the configuration.
  json builtin = kBuiltin;
  builtin["cv_names"] = {"x0", "x1"};
  const json fixed = {{"space_mode", "fixed"}, {"cvs", nullptr}};
  EXPECT_EQ(cv_axis_label(fixed, builtin, 1, 2), "x1 (reduced units)");
  json project = kMolecular;
  project["cv_names"] = {"extract_cvs[0]", "extract_cvs[1]"};
  const json pf = {{"cvs", nullptr}, {"system", {{"project_file", "/data/phi_psi.py"}}}};
  EXPECT_EQ(cv_axis_label(pf, project, 0, 2), "extract_cvs[0] (unit not stated)");
  // A record that does not match the dimension is ignored (older or foreign runs).
  EXPECT_EQ(cv_axis_label(fixed, builtin, 0, 3), "x (reduced units)");
}

TEST(CvAxes, ProjectFileCvNamesAndUnitsNameTheAxes) {
  // A project file's CV_NAMES / CV_UNITS (recorded as cv_names / cv_units) name the axes; an
  // angle in rad is then drawn in degrees like a cvs: dihedral.
  json project = kMolecular;
  project["cv_names"] = {"phi", "psi"};
  project["cv_units"] = {"rad", "rad"};
  const json pf = {{"cvs", nullptr}, {"system", {{"project_file", "/data/phi_psi.py"}}}};
  EXPECT_EQ(cv_axis_label(pf, project, 1, 2), "psi (rad)");
  EXPECT_TRUE(cv_axis(pf, project, 0, 2).is_radians());
  EXPECT_EQ(cv_axis(pf, project, 0, 2).in_degrees().label(), "phi (degrees)");
  // Units recorded for another dimension are ignored, as names are.
  project["cv_units"] = {"rad"};
  EXPECT_EQ(cv_axis_label(pf, project, 0, 2), "phi (unit not stated)");
}

TEST(CvAxes, NamedCvsCarryTheirKindsUnit) {
  const json config = {{"cvs",
                        {{{"name", "phi"}, {"kind", "phi"}, {"resid", 2}},
                         {{"name", "d_ca"}, {"kind", "distance"}, {"unit", "angstrom"}},
                         {{"name", "rg"}, {"kind", "rg"}},
                         {{"name", "nc"}, {"kind", "contacts"}},
                         {{"name", "w"}, {"kind", "dihedral"}, {"encoding", "sincos"}},
                         {{"name", "q"}, {"kind", "q"}}}}};
  EXPECT_EQ(cv_axis_label(config, kMolecular, 0, 7), "phi (rad)");
  EXPECT_EQ(cv_axis_label(config, kMolecular, 1, 7), "d_ca (Å)");
  EXPECT_EQ(cv_axis_label(config, kMolecular, 2, 7), "rg (nm)");
  EXPECT_EQ(cv_axis_label(config, kMolecular, 3, 7), "nc (count)");
  EXPECT_EQ(cv_axis_label(config, kMolecular, 4, 7), "w:sin (dimensionless)");
  EXPECT_EQ(cv_axis_label(config, kMolecular, 5, 7), "w:cos (dimensionless)");
  EXPECT_EQ(cv_axis_label(config, kMolecular, 6, 7), "q (fraction of native contacts)");
  const auto phi = cv_axis(config, kMolecular, 0, 7);
  EXPECT_TRUE(phi.is_radians());
  const auto deg = phi.in_degrees();
  EXPECT_EQ(deg.label(), "phi (degrees)");
  EXPECT_DOUBLE_EQ(deg.scale, 180.0 / M_PI);
  EXPECT_EQ(cv_axis(config, kMolecular, 1, 7).in_degrees().label(), "d_ca (Å)");  // not an angle
}

TEST(CvAxes, TopologyDependentWidthsFallBackToTheStableName) {
  // phi_psi's column count depends on the topology: its columns and any after are cv_i.
  const json config = {{"cvs", {{{"name", "bb"}, {"kind", "phi_psi"}}}}};
  EXPECT_EQ(cv_axis_label(config, kMolecular, 3, 18), "cv_3 (unit not recorded)");
}

TEST(CvAxes, ProjectFileRunsNameTheFileAndColumnNotRgRmsd) {
  const json config = {{"cvs", nullptr},
                       {"system", {{"project_file", "/data/alad_phi_psi_project.py"}}}};
  EXPECT_EQ(cv_axis_label(config, kMolecular, 0, 2),
            "alad_phi_psi_project.py column 0 (unit not stated)");
  EXPECT_EQ(cv_axis_label(config, kMolecular, 1, 2),
            "alad_phi_psi_project.py column 1 (unit not stated)");
}

TEST(CvAxes, FallbackRgRmsdAndLearnedSpaces) {
  const json fallback = {{"cvs", nullptr}, {"system", {{"project_file", nullptr}}}};
  EXPECT_EQ(cv_axis_label(fallback, kMolecular, 0, 2), "Rg (Å)");
  EXPECT_EQ(cv_axis_label(fallback, kMolecular, 1, 2), "RMSD (Å)");
  const json tica = {{"space_mode", "tica"}};
  EXPECT_EQ(cv_axis_label(tica, kMolecular, 1, 2), "TIC 2 (dimensionless)");
  EXPECT_EQ(cv_axis_label(tica, kBuiltin, 0, 2), "TIC 1 (dimensionless)");
  const json pca = {{"space_mode", "pca"}};
  EXPECT_EQ(cv_axis_label(pca, kBuiltin, 0, 2), "PC 1 (projection of the features)");
}

TEST(TimeAxis, FrameLengthFromStrideAndDt) {
  const json config = {{"spawning", {{"step", 200}, {"stride", 10}}}, {"engine", {{"dt", 0.002}}}};
  const auto t = report::time_axis(config, true, std::nullopt);
  ASSERT_TRUE(t.frame_ps);
  EXPECT_DOUBLE_EQ(*t.frame_ps, 0.02);
  EXPECT_DOUBLE_EQ(*t.tau_ps, 0.4);
  EXPECT_EQ(t.source, "config");
  const auto reduced = report::time_axis(config, false, std::nullopt);
  EXPECT_FALSE(reduced.frame_ps);
  EXPECT_EQ(reduced.unit(), "frames");
  const auto tau = report::time_axis(config, false, 2.0);  // 2 ps x 10 / 200
  EXPECT_DOUBLE_EQ(*tau.frame_ps, 0.1);
}

TEST(TimeAxis, ReadableUnitOfTheLargestTime) {
  report::TimeAxis t;
  t.frame_ps = 0.5;
  auto u = t.readable(10);  // 5 ps
  EXPECT_EQ(u.unit, "ps");
  EXPECT_DOUBLE_EQ(u.per_frame, 0.5);
  u = t.readable(4000);  // 2000 ps = 2 ns
  EXPECT_EQ(u.unit, "ns");
  EXPECT_DOUBLE_EQ(4000 * u.per_frame, 2.0);
  u = t.readable(4e6);  // 2e6 ps = 2 µs
  EXPECT_EQ(u.unit, "µs");
  EXPECT_DOUBLE_EQ(4e6 * u.per_frame, 2.0);
  t.frame_ps = 0.02;
  u = t.readable(10);  // 0.2 ps = 200 fs
  EXPECT_EQ(u.unit, "fs");
  EXPECT_DOUBLE_EQ(10 * u.per_frame, 200.0);
  report::TimeAxis frames;
  u = frames.readable(1e9);
  EXPECT_EQ(u.unit, "frames");
  EXPECT_EQ(u.per_frame, 1.0);
}

namespace {

// The reversible birth-death chain 0 <-> 1 <-> 2 with T01 = a, T10 = b, T12 = c, T21 = d, lag 2
// frames, PCCA+ sets {0} and {1, 2} (crisp memberships).
constexpr double a = 0.1, b = 0.2, c = 0.3, d = 0.4;

msm::MsmBuildRecord chain() {
  msm::MsmBuildRecord r;
  r.iteration = 7;
  r.lagtime = 2;
  r.n_microstates = 3;
  r.n_active = 3;
  r.active_set = {0, 1, 2};
  r.transition_matrix = Eigen::MatrixXd{{1 - a, a, 0}, {b, 1 - b - c, c}, {0, d, 1 - d}};
  // Detailed balance: pi1 / pi0 = a / b, pi2 / pi1 = c / d.
  const double z = 1 + a / b + a / b * c / d;
  r.stationary_distribution = {1 / z, a / b / z, a / b * c / d / z};
  r.n_metastable = 2;
  r.metastable_assignments = std::vector<int>{0, 1, 1};
  r.metastable_memberships = Eigen::MatrixXd{{1, 0}, {0, 1}, {0, 1}};
  return r;
}

}  // namespace

TEST(MsmNetwork, CoarseMatrixAndMfptsOfAThreeStateChain) {
  const auto r = chain();
  const auto& pi = r.stationary_distribution;
  const auto net = report::coarse_network(r);
  ASSERT_TRUE(net);
  EXPECT_EQ(net->iteration, 7);
  ASSERT_EQ(net->populations.size(), 2u);
  EXPECT_NEAR(net->populations[0], pi[0], 1e-15);
  EXPECT_NEAR(net->populations[1], pi[1] + pi[2], 1e-15);
  EXPECT_EQ(net->microstates, (std::vector<int>{1, 2}));
  // Crisp memberships: the pi-weighted block sums of T.
  const double t10 = pi[1] * b / (pi[1] + pi[2]);
  EXPECT_NEAR(net->transition(0, 0), 1 - a, 1e-12);
  EXPECT_NEAR(net->transition(0, 1), a, 1e-12);
  EXPECT_NEAR(net->transition(1, 0), t10, 1e-12);
  EXPECT_NEAR(net->transition(1, 1), 1 - t10, 1e-12);
  // MFPT {0} -> {1,2}: geometric, 1/a steps. {1,2} -> {0}: m1 = (1 + c/d) / b, m2 = m1 + 1/d,
  // pi-weighted over the set. One step = lag = 2 frames.
  const double m1 = (1 + c / d) / b;
  const double m2 = m1 + 1 / d;
  EXPECT_NEAR(net->mfpt(0, 1), 2 * (1 / a), 1e-9);
  EXPECT_NEAR(net->mfpt(1, 0), 2 * (pi[1] * m1 + pi[2] * m2) / (pi[1] + pi[2]), 1e-9);
  EXPECT_EQ(net->mfpt(0, 0), 0.0);
  EXPECT_EQ(net->mfpt(1, 1), 0.0);

  // In physical time: 0.5 ps per frame; the largest MFPT (20 frames = 10 ps) picks ps.
  report::TimeAxis time;
  time.frame_ps = 0.5;
  const json j = report::network_json(*net, time);
  EXPECT_EQ(j["mfpt_unit"], "ps");
  EXPECT_NEAR(j["mfpt"][0][1].get<double>(), 10.0, 1e-9);
  EXPECT_NEAR(j["mfpt_frames"][0][1].get<double>(), 20.0, 1e-9);
  EXPECT_EQ(j["lag_frames"], 2);
  EXPECT_EQ(j["sets"][1]["microstates"], 2);
  const std::string table = report::network_table(*net, time);
  EXPECT_NE(table.find("lag 2 frames = 1 ps"), std::string::npos) << table;
  EXPECT_NE(table.find(fmt::format("{:<5}{:>10.2f} %", "S1", 100 * pi[0])), std::string::npos)
      << table;
  EXPECT_NE(table.find("mean first passage time (ps;"), std::string::npos) << table;
}

// `trails msm --pcca K --network`: the network comes from the model's own pcca block, numbers
// for numbers (a null MFPT reads back as NaN), with no build iteration in its table or JSON.
TEST(MsmNetwork, OfATrailsMsmModelIsItsPccaBlock) {
  const json model = {{"lag", 3},
                      {"pcca",
                       {{"populations", {0.25, 0.75}},
                        {"sets", {{0}, {1, 2}}},
                        {"coarse_transition_matrix", {{0.9, 0.1}, {0.03, 0.97}}},
                        {"mfpt", {{0.0, 30.0}, {nullptr, 0.0}}}}}};
  const auto net = report::coarse_network_of_model(model);
  EXPECT_FALSE(net.iteration);
  EXPECT_EQ(net.lag, 3);
  EXPECT_EQ(net.populations, (std::vector<double>{0.25, 0.75}));
  EXPECT_EQ(net.microstates, (std::vector<int>{1, 2}));
  EXPECT_EQ(net.transition(1, 0), 0.03);
  EXPECT_EQ(net.mfpt(0, 1), 30.0);
  EXPECT_TRUE(std::isnan(net.mfpt(1, 0)));
  const report::TimeAxis frames;
  EXPECT_TRUE(report::network_json(net, frames)["iteration"].is_null());
  const std::string table = report::network_table(net, frames);
  EXPECT_EQ(table.rfind("PCCA+ network of the MSM of the trajectories (lag 3 frames)", 0), 0u)
      << table;
  json ragged = model;
  ragged["pcca"]["mfpt"][1] = {0.0};
  EXPECT_THROW(report::coarse_network_of_model(ragged), core::InputError);
}

TEST(MsmNetwork, NoneWithoutPcca) {
  auto r = chain();
  r.metastable_memberships.reset();
  EXPECT_FALSE(report::coarse_network(r));
}

// progress.png of a swarm names the metric its mode measures (an unfold run's distance is
// weighted by unfold_weights, not |ξ − ξ0|), with the CVs' unit when they share one.
TEST(SwarmPictures, ProgressLabelNamesTheModesMetric) {
  store::RunMeta meta;
  meta.engine_system = kBuiltin;
  meta.config = {{"space_mode", "fixed"},
                 {"cvs", nullptr},
                 {"pathgennie", {{"mode", "escape"}, {"escape_metric", "distance_from_start"}}}};
  EXPECT_EQ(report::swarm_progress_label(meta, 2),
            "progress  |ξ - ξ0|  (reduced units; distance from the start)");
  meta.config["pathgennie"]["escape_metric"] = "cv0";
  EXPECT_EQ(report::swarm_progress_label(meta, 2), "progress  = x (reduced units)");
  meta.config["pathgennie"] = {{"mode", "target"}};
  EXPECT_EQ(report::swarm_progress_label(meta, 2),
            "progress  -|ξ - ξ*|  (reduced units; 0 at the target)");
  meta.config["pathgennie"] = {{"mode", "unfold"}, {"unfold_weights", {10.0, -1.0}}};
  const auto unfold = report::swarm_progress_label(meta, 2);
  EXPECT_EQ(unfold, "progress  |w ⊙ (ξ - ξ0)|  (w = unfold_weights [10, -1])");
  EXPECT_EQ(unfold.find("|ξ - ξ0|"), std::string::npos);
}

// Cycles are whole numbers: the tick step is 1, 2 or 5 times a power of ten, never a fraction.
TEST(SwarmPictures, CycleTicksAreWholeCycles) {
  EXPECT_EQ(report::cycle_tick_step(1), 1);
  EXPECT_EQ(report::cycle_tick_step(3), 1);
  EXPECT_EQ(report::cycle_tick_step(8), 1);
  EXPECT_EQ(report::cycle_tick_step(9), 2);
  EXPECT_EQ(report::cycle_tick_step(40), 5);
  EXPECT_EQ(report::cycle_tick_step(41), 10);
  EXPECT_EQ(report::cycle_tick_step(1000), 200);
  for (std::int64_t last = 1; last < 100000; last = last * 3 + 1) {
    const auto step = report::cycle_tick_step(last);
    EXPECT_GE(step, 1);
    EXPECT_LE(last / step, 8) << last;
  }
}
