// The ledger's msm_builds payload (src/trails/msm/msm_build_record.h, docs/file-formats.md
// "msm_builds"): the bytes the writer produces for hand-made builds are pinned, because ledgers and
// `trails export` outputs are compared by hash across Trails versions; the typed record survives
// a round trip through JSON; every kind of damage is a CorruptionError naming the key.
#include "trails/msm/msm_build_record.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "support/compare.h"
#include "trails/core/error.h"
#include "trails/msm/msm_build.h"

namespace trails::msm {
namespace {

using test_support::kNaN;
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
  b.its_errors = {{1.5, 0.25}, {kNaN, kNaN}, {3.5, kNaN}};
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

// A version-1 payload (before its_errors), still read.
constexpr const char* kFullJsonV1 =
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

constexpr const char* kEmptyJsonV1 =
    R"({"active_set":[1],"cluster_centers":null,"converged":false,"count_matrix":[],)"
    R"("criteria":"","criteria_met":false,"estimator":"mle","frames":40,"iteration":3,)"
    R"("its":{"5":[null]},"lag_guard_ok":true,"lagtime":5,"metastable_assignments":null,)"
    R"("metastable_memberships":null,"metastable_populations":null,"min_segment":0,)"
    R"("mle_converged":true,"n_active":1,"n_metastable":null,"n_microstates":2,)"
    R"("note":"fewer than 2 states in the largest strongly connected set",)"
    R"("pcca_crispness":null,"reason":"","record_version":1,"refit":false,)"
    R"("stationary_distribution":[],"streak":0,"timescale_errors":null,"timescales":[],)"
    R"("transition_matrix":[],"vamp2":null})";

// The writer's bytes (record version 2).
constexpr const char* kFullJson =
    R"({"active_set":[0,1,3],"cluster_centers":[-0.5,1.5,0.25,0.5,0.75,0.0,1e-07,-2.0],)"
    R"("converged":true,"count_matrix":[[900.0,70.0,30.0],[33.0,264.0,33.0],[15.0,33.5,118.25]],)"
    R"("criteria":"implied_timescales: max relative change 0.01 < 0.1; vamp2: baseline",)"
    R"("criteria_met":true,"estimator":"bayesian","frames":4800,"iteration":12,)"
    R"("its":{"1":[30.5,4.25],"10":[null,null],"2":[41.25,null]},)"
    R"("its_errors":{"1":[1.5,0.25],"10":[null,null],"2":[3.5,null]},"lag_guard_ok":false,)"
    R"("lagtime":2,"metastable_assignments":[0,0,1],)"
    R"("metastable_memberships":[[1.0,0.0],[0.75,0.25],[0.125,0.875]],)"
    R"("metastable_populations":[0.8333333333333334,0.16666666666666666],"min_segment":30,)"
    R"("mle_converged":false,"n_active":3,"n_metastable":2,"n_microstates":4,"note":"",)"
    R"("pcca_crispness":0.8125,"reason":"MSM convergence: criteria (all) satisfied for 2 )"
    R"(consecutive build(s). [x]","record_version":2,"refit":true,)"
    R"("stationary_distribution":[0.5,0.3333333333333333,0.16666666666666666],"streak":2,)"
    R"("timescale_errors":[3.5,null],"timescales":[41.25,null],)"
    R"("transition_matrix":[[0.9,0.07,0.03],[0.1,0.8,0.1],[0.09,0.2,0.71]],"vamp2":2.0625})";

constexpr const char* kEmptyJson =
    R"({"active_set":[1],"cluster_centers":null,"converged":false,"count_matrix":[],)"
    R"("criteria":"","criteria_met":false,"estimator":"mle","frames":40,"iteration":3,)"
    R"("its":{"5":[null]},"its_errors":null,)"
    R"("lag_guard_ok":true,"lagtime":5,"metastable_assignments":null,)"
    R"("metastable_memberships":null,"metastable_populations":null,"min_segment":0,)"
    R"("mle_converged":true,"n_active":1,"n_metastable":null,"n_microstates":2,)"
    R"("note":"fewer than 2 states in the largest strongly connected set",)"
    R"("pcca_crispness":null,"reason":"","record_version":2,"refit":false,)"
    R"("stationary_distribution":[],"streak":0,"timescale_errors":null,"timescales":[],)"
    R"("transition_matrix":[],"vamp2":null})";

TEST(MsmBuildRecord, WriterBytesOfAFullBuild) {
  EXPECT_EQ(full_build().to_json().dump(), kFullJson);
}

TEST(MsmBuildRecord, WriterBytesOfABuildWithoutAModel) {
  EXPECT_EQ(empty_build().to_json().dump(), kEmptyJson);
}

TEST(MsmBuildRecord, WriterGoesThroughTheRecord) {
  for (const MsmBuild& b : {full_build(), empty_build()}) {
    EXPECT_EQ(b.to_json().dump(), to_json(b.record()).dump());
  }
}

// ---- the typed record ----

using json = nlohmann::json;
const std::string kWhere = "ledger.sqlite, MSM build of iteration 12";

// Doubles the JSON holds as null compare equal whatever non-finite value they were written from.
bool same_number(double a, double b) {
  return std::isfinite(a) || std::isfinite(b) ? a == b : true;
}

void expect_same_numbers(const std::vector<double>& a, const std::vector<double>& b,
                         const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(same_number(a[i], b[i])) << what << "[" << i << "]: " << a[i] << " vs " << b[i];
  }
}

void expect_same_matrix(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b,
                        const std::string& what) {
  ASSERT_EQ(a.rows(), b.rows()) << what;
  ASSERT_EQ(a.cols(), b.cols()) << what;
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    for (Eigen::Index j = 0; j < a.cols(); ++j) EXPECT_TRUE(same_number(a(i, j), b(i, j))) << what;
  }
}

template <class T, class F>
void expect_same_optional(const std::optional<T>& a, const std::optional<T>& b, F same,
                          const std::string& what) {
  ASSERT_EQ(a.has_value(), b.has_value()) << what;
  if (a) same(*a, *b, what);
}

void expect_same(const MsmBuildRecord& a, const MsmBuildRecord& b) {
  EXPECT_EQ(a.iteration, b.iteration);
  EXPECT_EQ(a.frames, b.frames);
  EXPECT_EQ(a.refit, b.refit);
  EXPECT_EQ(a.lagtime, b.lagtime);
  EXPECT_EQ(a.n_microstates, b.n_microstates);
  EXPECT_EQ(a.n_active, b.n_active);
  EXPECT_EQ(a.active_set, b.active_set);
  expect_same_numbers(a.stationary_distribution, b.stationary_distribution, "pi");
  expect_same_matrix(a.transition_matrix, b.transition_matrix, "transition_matrix");
  expect_same_matrix(a.count_matrix, b.count_matrix, "count_matrix");
  expect_same_numbers(a.timescales, b.timescales, "timescales");
  EXPECT_EQ(a.estimator, b.estimator);
  expect_same_optional(a.timescale_errors, b.timescale_errors, expect_same_numbers,
                       "timescale_errors");
  EXPECT_EQ(a.n_metastable, b.n_metastable);
  EXPECT_EQ(a.metastable_assignments, b.metastable_assignments);
  expect_same_optional(a.metastable_populations, b.metastable_populations, expect_same_numbers,
                       "metastable_populations");
  expect_same_optional(a.metastable_memberships, b.metastable_memberships, expect_same_matrix,
                       "metastable_memberships");
  EXPECT_EQ(a.pcca_crispness, b.pcca_crispness);
  EXPECT_EQ(a.vamp2, b.vamp2);
  ASSERT_EQ(a.its.size(), b.its.size());
  for (const auto& [lag, ts] : a.its) {
    ASSERT_TRUE(b.its.contains(lag)) << lag;
    expect_same_numbers(ts, b.its.at(lag), "its " + std::to_string(lag));
  }
  EXPECT_EQ(a.mle_converged, b.mle_converged);
  EXPECT_EQ(a.cluster_centers, b.cluster_centers);
  EXPECT_EQ(a.min_segment, b.min_segment);
  EXPECT_EQ(a.note, b.note);
  EXPECT_EQ(a.lag_guard_ok, b.lag_guard_ok);
  EXPECT_EQ(a.criteria_met, b.criteria_met);
  EXPECT_EQ(a.criteria, b.criteria);
  EXPECT_EQ(a.streak, b.streak);
  EXPECT_EQ(a.converged, b.converged);
  EXPECT_EQ(a.reason, b.reason);
}

TEST(MsmBuildRecord, RecordOfABuildHoldsItsPayload) {
  const MsmBuildRecord r = full_build().record();
  EXPECT_EQ(r.lagtime, 2);
  EXPECT_EQ(r.n_active, 3);
  EXPECT_EQ(r.estimator, "bayesian");
  ASSERT_TRUE(r.timescale_errors.has_value());
  EXPECT_EQ(r.timescale_errors->at(0), 3.5);
  EXPECT_EQ(r.n_metastable, 2);
  ASSERT_TRUE(r.metastable_memberships.has_value());
  EXPECT_EQ((*r.metastable_memberships)(2, 1), 0.875);
  EXPECT_EQ(r.pcca_crispness, 0.8125);
  EXPECT_EQ(r.vamp2, 2.0625);
  ASSERT_EQ(r.its.size(), 3u);
  EXPECT_EQ(r.its.at(2)[0], 41.25);  // its_lags {1, 10, 2}: lag 2 is the third row
  EXPECT_TRUE(std::isnan(r.its.at(10)[0]));
  EXPECT_EQ(r.cluster_centers, (std::vector<double>{-0.5, 1.5, 0.25, 0.5, 0.75, 0.0, 1e-7, -2.0}));

  const MsmBuildRecord e = empty_build().record();
  EXPECT_EQ(e.estimator, "mle");
  EXPECT_FALSE(e.timescale_errors || e.n_metastable || e.metastable_assignments ||
               e.metastable_populations || e.metastable_memberships || e.pcca_crispness ||
               e.vamp2 || e.cluster_centers);
  EXPECT_EQ(e.note, "fewer than 2 states in the largest strongly connected set");
}

TEST(MsmBuildRecord, RoundTripsThroughJson) {
  for (const MsmBuild& b : {full_build(), empty_build()}) {
    const MsmBuildRecord r = b.record();
    const std::string text = to_json(r).dump();
    const MsmBuildRecord back = parse_msm_build_record(json::parse(text), kWhere);
    expect_same(r, back);
    EXPECT_EQ(to_json(back).dump(), text);
  }
  // Non-finite doubles are null in the JSON and NaN in the record read back.
  const auto back = parse_msm_build_record(json::parse(kFullJson), kWhere);
  EXPECT_TRUE(std::isnan(back.its_errors->at(2)[1]));
  EXPECT_EQ(back.its_errors->at(1), (std::vector<double>{1.5, 0.25}));
  EXPECT_EQ(back.timescales[0], 41.25);
  EXPECT_TRUE(std::isnan(back.timescales[1]));
  EXPECT_TRUE(std::isnan(back.timescale_errors->at(1)));
  EXPECT_TRUE(std::isnan(back.its.at(10)[1]));
  EXPECT_EQ(back.its.at(1), (std::vector<double>{30.5, 4.25}));
  EXPECT_EQ(back.transition_matrix(2, 2), 0.71);
  EXPECT_EQ(back.count_matrix(2, 1), 33.5);
  EXPECT_EQ(back.iteration, 12);
  EXPECT_EQ(back.frames, 4800);
  EXPECT_EQ(back.min_segment, 30);
}

// The message of the CorruptionError that parsing `record` throws ("" after a test failure).
std::string corruption(const json& record) {
  try {
    parse_msm_build_record(record, kWhere);
  } catch (const core::CorruptionError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no CorruptionError for " << record.dump();
  return "";
}

json valid() { return to_json(full_build().record()); }

json with(const std::string& key, json value) {
  json j = valid();
  j[key] = std::move(value);
  return j;
}

// Another valid value of the same JSON type: the first element of an array or an object changed.
json changed(const std::string& key, json v) {
  if (key == "estimator") return v == "mle" ? "bayesian" : "mle";
  switch (v.type()) {
    case json::value_t::boolean:
      return !v.get<bool>();
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return v.get<std::int64_t>() + 1;
    case json::value_t::number_float:
      return v.get<double>() * 2 + 1;
    case json::value_t::string:
      return v.get<std::string>() + "!";
    case json::value_t::array:
      v[0] = changed(key, v[0]);
      return v;
    case json::value_t::object:
      v.begin().value() = changed(key, v.begin().value());
      return v;
    default:
      ADD_FAILURE() << key << " has no value to change";
      return v;
  }
}

// Each key is read into its own field: change one key's value and the record written back holds
// the change there, and only there.
TEST(MsmBuildRecord, EveryKeyIsReadIntoItsOwnField) {
  for (const auto k : msm_build_record_keys()) {
    const std::string key(k);
    const json j = with(key, changed(key, valid().at(key)));
    ASSERT_NE(j, valid()) << key;
    EXPECT_EQ(to_json(parse_msm_build_record(j, kWhere)).dump(), j.dump()) << key;
  }
}

TEST(MsmBuildRecord, EveryMissingKeyIsNamed) {
  ASSERT_EQ(msm_build_record_keys().size(), 31u);
  for (const auto key : msm_build_record_keys()) {
    json j = valid();
    ASSERT_EQ(j.erase(std::string(key)), 1u) << key;
    EXPECT_EQ(corruption(j),
              kWhere + ": the MSM build record has no key '" + std::string(key) + "'");
  }
}

TEST(MsmBuildRecord, EveryKeyOfAnotherTypeIsNamed) {
  const std::vector<std::string> strings = {"estimator", "note", "criteria", "reason"};
  for (const auto k : msm_build_record_keys()) {
    const std::string key(k);
    const bool is_string = std::find(strings.begin(), strings.end(), key) != strings.end();
    const std::string message = corruption(with(key, is_string ? json(7) : json("x")));
    EXPECT_EQ(message.rfind(kWhere + ": key '" + key + "' is " +
                                (is_string ? "an integer" : "a string") + ", expected ",
                            0),
              0u)
        << message;
  }
}

TEST(MsmBuildRecord, TypeErrorsSayWhatWasExpected) {
  EXPECT_EQ(corruption(with("vamp2", "2.0")),
            kWhere + ": key 'vamp2' is a string, expected a number or null");
  EXPECT_EQ(corruption(with("frames", nullptr)),
            kWhere + ": key 'frames' is null, expected an integer");
  EXPECT_EQ(corruption(with("streak", 1.5)),
            kWhere + ": key 'streak' is a floating-point number, expected an integer");
  EXPECT_EQ(corruption(with("n_metastable", "2")),
            kWhere + ": key 'n_metastable' is a string, expected an integer or null");
  EXPECT_EQ(corruption(with("timescale_errors", json::object())),
            kWhere + ": key 'timescale_errors' is an object, expected an array or null");
  EXPECT_EQ(corruption(with("refit", 1)),
            kWhere + ": key 'refit' is an integer, expected a boolean");
  EXPECT_EQ(corruption(with("its", json::array())),
            kWhere + ": key 'its' is an array, expected an object");
}

TEST(MsmBuildRecord, ElementErrorsNameTheKeyAndTheElement) {
  EXPECT_EQ(corruption(with("timescales", {1.0, "x"})),
            kWhere + ": key 'timescales' element 1 is a string, expected a number or null");
  EXPECT_EQ(
      corruption(with("active_set", {0, 1.5})),
      kWhere + ": key 'active_set' element 1 is a floating-point number, expected an integer");
  EXPECT_EQ(corruption(with("transition_matrix", {{0.5, 0.5}, {1.0}})),
            kWhere + ": key 'transition_matrix' row 1 has 1 entries, row 0 has 2");
  EXPECT_EQ(
      corruption(with("count_matrix", {{1.0, true}})),
      kWhere + ": key 'count_matrix' row 0 element 1 is a boolean, expected a number or null");
  EXPECT_EQ(
      corruption(with("metastable_memberships", {1.0})),
      kWhere +
          ": key 'metastable_memberships' row 0 is a floating-point number, expected an array");
  EXPECT_EQ(corruption(with("its", {{"two", {1.0}}})),
            kWhere + ": key 'its' has the lag 'two', expected an integer");
  EXPECT_EQ(corruption(with("its", {{"02", {1.0}}})),
            kWhere + ": key 'its' has the lag '02', expected an integer");
  EXPECT_EQ(corruption(with("its", {{"2", {nullptr, "1"}}})),
            kWhere + ": key 'its' lag 2 element 1 is a string, expected a number or null");
}

TEST(MsmBuildRecord, ValuesOutsideTheirTypeAreNamed) {
  EXPECT_EQ(corruption(with("lagtime", std::int64_t{1} << 40)),
            kWhere + ": key 'lagtime' is 1099511627776, out of the range of its integer type");
  EXPECT_EQ(corruption(with("n_active", -3000000000LL)),
            kWhere + ": key 'n_active' is -3000000000, out of the range of its integer type");
  EXPECT_EQ(corruption(with("frames", std::uint64_t{1} << 63)),
            kWhere + ": key 'frames' is 9223372036854775808, out of the range of its integer type");
  EXPECT_EQ(corruption(with("estimator", "map")),
            kWhere + ": key 'estimator' is 'map', expected 'mle' or 'bayesian'");
  // Within range and of the right type: read.
  EXPECT_EQ(parse_msm_build_record(with("frames", std::int64_t{1} << 40), kWhere).frames,
            std::int64_t{1} << 40);
}

TEST(MsmBuildRecord, OtherVersionsAndLayoutsAreRejected) {
  const std::string other =
      " (this Trails reads versions 1 to 2); the run was written by another Trails version";
  EXPECT_EQ(corruption(with("record_version", 3)), kWhere + ": MSM build record version 3" + other);
  EXPECT_EQ(corruption(with("record_version", "1")),
            kWhere + ": MSM build record version \"1\"" + other);
  json j = valid();
  j.erase("record_version");
  EXPECT_EQ(corruption(j), kWhere + ": MSM build record version missing" + other);
  EXPECT_EQ(corruption(json::array()), kWhere + ": the MSM build record is not a JSON object");
  EXPECT_EQ(corruption(with("vamp", 2.0)),
            kWhere + ": the MSM build record has an unknown key 'vamp'");
  // Version 1 has no its_errors.
  json v1 = json::parse(kFullJsonV1);
  v1["its_errors"] = nullptr;
  EXPECT_EQ(corruption(v1), kWhere + ": the MSM build record has an unknown key 'its_errors'");
}

TEST(MsmBuildRecord, VersionOneRecordsAreReadWithoutItsErrors) {
  for (const char* text : {kFullJsonV1, kEmptyJsonV1}) {
    const auto r = parse_msm_build_record(json::parse(text), kWhere);
    EXPECT_FALSE(r.its_errors.has_value());
  }
  const auto full = parse_msm_build_record(json::parse(kFullJsonV1), kWhere);
  EXPECT_EQ(full.its.at(1), (std::vector<double>{30.5, 4.25}));
  EXPECT_EQ(full.timescale_errors->at(0), 3.5);
  // Written back, it is a version-2 record: the same fields, its_errors null.
  const json again = to_json(full);
  EXPECT_EQ(again.at("record_version"), 2);
  EXPECT_TRUE(again.at("its_errors").is_null());
}

}  // namespace
}  // namespace trails::msm
