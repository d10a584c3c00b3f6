#include "trails/msm/msm_build_record.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "trails/core/error.h"

namespace trails::msm {
namespace {

using json = nlohmann::json;

constexpr std::array<std::string_view, 31> kKeys = {"iteration",
                                                    "frames",
                                                    "refit",
                                                    "lagtime",
                                                    "n_microstates",
                                                    "n_active",
                                                    "active_set",
                                                    "stationary_distribution",
                                                    "transition_matrix",
                                                    "count_matrix",
                                                    "timescales",
                                                    "estimator",
                                                    "timescale_errors",
                                                    "n_metastable",
                                                    "metastable_assignments",
                                                    "metastable_populations",
                                                    "metastable_memberships",
                                                    "pcca_crispness",
                                                    "vamp2",
                                                    "its",
                                                    "its_errors",
                                                    "mle_converged",
                                                    "cluster_centers",
                                                    "min_segment",
                                                    "note",
                                                    "lag_guard_ok",
                                                    "criteria_met",
                                                    "criteria",
                                                    "streak",
                                                    "converged",
                                                    "reason"};

// ---- writing ----

json matrix_json(const Eigen::MatrixXd& m) {
  json rows = json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    json r = json::array();
    for (Eigen::Index j = 0; j < m.cols(); ++j) r.push_back(m(i, j));
    rows.push_back(std::move(r));
  }
  return rows;
}

json finite_or_null(const std::vector<double>& v) {
  json out = json::array();
  for (const double x : v) out.push_back(std::isfinite(x) ? json(x) : json(nullptr));
  return out;
}

// lag -> values as {"lag": [...]}.
json its_json(const std::map<int, std::vector<double>>& by_lag) {
  json its = json::object();
  for (const auto& [lag, ts] : by_lag) its[std::to_string(lag)] = finite_or_null(ts);
  return its;
}

template <class T, class F>
json or_null(const std::optional<T>& v, F write) {
  return v ? json(write(*v)) : json(nullptr);
}

const auto as_is = [](const auto& v) { return json(v); };

// ---- reading ----

// The value being read, for error messages: "key 'its' lag 2 element 0". or_null: JSON null
// is also accepted there.
struct At {
  const std::string& where;
  std::string what;
  bool or_null = false;
  At element(std::size_t i) const { return {where, fmt::format("{} element {}", what, i)}; }
};

std::string kind_of(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::string:
      return "a string";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "an integer";
    case json::value_t::number_float:
      return "a floating-point number";
    case json::value_t::array:
      return "an array";
    case json::value_t::object:
      return "an object";
    default:
      return "binary data";
  }
}

[[noreturn]] void wrong_type(const At& at, const json& v, std::string_view expected) {
  throw core::CorruptionError(fmt::format("{}: {} is {}, expected {}{}", at.where, at.what,
                                          kind_of(v), expected, at.or_null ? " or null" : ""));
}

template <class Int>
Int as_integer(const json& v, const At& at) {
  if (!v.is_number_integer()) wrong_type(at, v, "an integer");
  const bool fits =
      v.is_number_unsigned()
          ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<Int>::max())
          : v.get<std::int64_t>() >= std::numeric_limits<Int>::min() &&
                v.get<std::int64_t>() <= std::numeric_limits<Int>::max();
  if (!fits) {
    throw core::CorruptionError(fmt::format("{}: {} is {}, out of the range of its integer type",
                                            at.where, at.what, v.dump()));
  }
  return static_cast<Int>(v.get<std::int64_t>());
}

bool as_bool(const json& v, const At& at) {
  if (!v.is_boolean()) wrong_type(at, v, "a boolean");
  return v.get<bool>();
}

std::string as_string(const json& v, const At& at) {
  if (!v.is_string()) wrong_type(at, v, "a string");
  return v.get<std::string>();
}

// A number, or null for a double the writer could not write as one (NaN, infinities): NaN.
double as_number(const json& v, const At& at) {
  if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!v.is_number()) wrong_type({at.where, at.what, true}, v, "a number");
  return v.get<double>();
}

const json& as_array(const json& v, const At& at) {
  if (!v.is_array()) wrong_type(at, v, "an array");
  return v;
}

std::vector<double> as_numbers(const json& v, const At& at) {
  std::vector<double> out;
  for (const auto& x : as_array(v, at)) out.push_back(as_number(x, at.element(out.size())));
  return out;
}

std::vector<int> as_integers(const json& v, const At& at) {
  std::vector<int> out;
  for (const auto& x : as_array(v, at)) out.push_back(as_integer<int>(x, at.element(out.size())));
  return out;
}

// A list of rows of one length.
Eigen::MatrixXd as_matrix(const json& v, const At& at) {
  const json& rows = as_array(v, at);
  const auto n = static_cast<Eigen::Index>(rows.size());
  Eigen::MatrixXd m;
  for (Eigen::Index i = 0; i < n; ++i) {
    const At row{at.where, fmt::format("{} row {}", at.what, i)};
    const json& r = as_array(rows[static_cast<std::size_t>(i)], row);
    if (i == 0) m.resize(n, static_cast<Eigen::Index>(r.size()));
    if (static_cast<Eigen::Index>(r.size()) != m.cols()) {
      throw core::CorruptionError(fmt::format("{}: {} has {} entries, row 0 has {}", at.where,
                                              row.what, r.size(), m.cols()));
    }
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      m(i, j) = as_number(r[static_cast<std::size_t>(j)], row.element(static_cast<std::size_t>(j)));
    }
  }
  return m;
}

// {"lag": [timescales...]}: every key a lag in decimal, as std::to_string writes it.
std::map<int, std::vector<double>> as_its(const json& v, const At& at) {
  if (!v.is_object()) wrong_type(at, v, "an object");
  std::map<int, std::vector<double>> out;
  for (const auto& [key, row] : v.items()) {
    int lag = 0;
    const auto r = std::from_chars(key.data(), key.data() + key.size(), lag);
    if (r.ec != std::errc() || r.ptr != key.data() + key.size() || std::to_string(lag) != key) {
      throw core::CorruptionError(
          fmt::format("{}: {} has the lag '{}', expected an integer", at.where, at.what, key));
    }
    out[lag] = as_numbers(row, {at.where, fmt::format("{} lag {}", at.what, key)});
  }
  return out;
}

// The payload's keys of one record, each read once.
class Fields {
 public:
  Fields(const json& record, const std::string& where) : record_(record), where_(where) {}

  // An object of version 1 or kMsmBuildRecordVersion with exactly the keys of kKeys that its
  // version has (version 1: all but its_errors).
  void check_layout();
  int version() const { return version_; }

  template <class T>
  T get(std::string_view key, T (*read)(const json&, const At&)) const {
    return read(value(key), {where_, name(key)});
  }
  template <class T>
  std::optional<T> get_or_null(std::string_view key, T (*read)(const json&, const At&)) const {
    const json& v = value(key);
    if (v.is_null()) return std::nullopt;
    return read(v, {where_, name(key), true});
  }

 private:
  static std::string name(std::string_view key) { return fmt::format("key '{}'", key); }
  const json& value(std::string_view key) const { return record_.at(std::string(key)); }

  const json& record_;
  const std::string& where_;
  int version_ = kMsmBuildRecordVersion;
};

// Keys a record of `version` has: its_errors came with version 2.
bool has_key(int version, std::string_view key) { return version >= 2 || key != "its_errors"; }

void Fields::check_layout() {
  if (!record_.is_object()) {
    throw core::CorruptionError(where_ + ": the MSM build record is not a JSON object");
  }
  const auto version = record_.find("record_version");
  if (version == record_.end() || !version->is_number_integer() ||
      (version->get<std::int64_t>() != 1 &&
       version->get<std::int64_t>() != kMsmBuildRecordVersion)) {
    throw core::CorruptionError(fmt::format(
        "{}: MSM build record version {} (this Trails reads versions 1 to {}); the run was "
        "written by another Trails version",
        where_, version == record_.end() ? std::string("missing") : version->dump(),
        kMsmBuildRecordVersion));
  }
  version_ = static_cast<int>(version->get<std::int64_t>());
  for (const auto key : kKeys) {
    if (has_key(version_, key) && !record_.contains(key)) {
      throw core::CorruptionError(
          fmt::format("{}: the MSM build record has no key '{}'", where_, key));
    }
  }
  for (const auto& [key, v] : record_.items()) {
    if (key != "record_version" &&
        (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end() || !has_key(version_, key))) {
      throw core::CorruptionError(
          fmt::format("{}: the MSM build record has an unknown key '{}'", where_, key));
    }
  }
}

}  // namespace

std::span<const std::string_view> msm_build_record_keys() { return kKeys; }

json to_json(const MsmBuildRecord& r) {
  json record = {{"record_version", kMsmBuildRecordVersion},
                 {"iteration", r.iteration},
                 {"frames", r.frames},
                 {"refit", r.refit},
                 {"lagtime", r.lagtime},
                 {"n_microstates", r.n_microstates},
                 {"n_active", r.n_active},
                 {"active_set", r.active_set},
                 {"stationary_distribution", r.stationary_distribution},
                 {"transition_matrix", matrix_json(r.transition_matrix)},
                 {"count_matrix", matrix_json(r.count_matrix)},
                 {"timescales", finite_or_null(r.timescales)},
                 {"estimator", r.estimator},
                 {"timescale_errors", or_null(r.timescale_errors, finite_or_null)},
                 {"n_metastable", or_null(r.n_metastable, as_is)},
                 {"metastable_assignments", or_null(r.metastable_assignments, as_is)},
                 {"metastable_populations", or_null(r.metastable_populations, as_is)},
                 {"metastable_memberships", or_null(r.metastable_memberships, matrix_json)},
                 {"pcca_crispness", or_null(r.pcca_crispness, as_is)},
                 {"vamp2", or_null(r.vamp2, as_is)},
                 {"its", its_json(r.its)},
                 {"its_errors", or_null(r.its_errors, its_json)},
                 {"mle_converged", r.mle_converged},
                 {"cluster_centers", or_null(r.cluster_centers, as_is)},
                 {"min_segment", r.min_segment},
                 {"note", r.note},
                 {"lag_guard_ok", r.lag_guard_ok},
                 {"criteria_met", r.criteria_met},
                 {"criteria", r.criteria},
                 {"streak", r.streak},
                 {"converged", r.converged},
                 {"reason", r.reason}};
  // The parser's key list is the writer's: a key added here without it fails at once.
  TRAILS_CHECK(record.size() == kKeys.size() + 1,
               "to_json(MsmBuildRecord) and msm_build_record_keys() disagree");
  return record;
}

MsmBuildRecord parse_msm_build_record(const json& record, const std::string& where) {
  Fields f(record, where);
  f.check_layout();
  MsmBuildRecord r;
  r.iteration = f.get("iteration", as_integer<std::int64_t>);
  r.frames = f.get("frames", as_integer<std::int64_t>);
  r.refit = f.get("refit", as_bool);
  r.lagtime = f.get("lagtime", as_integer<int>);
  r.n_microstates = f.get("n_microstates", as_integer<int>);
  r.n_active = f.get("n_active", as_integer<int>);
  r.active_set = f.get("active_set", as_integers);
  r.stationary_distribution = f.get("stationary_distribution", as_numbers);
  r.transition_matrix = f.get("transition_matrix", as_matrix);
  r.count_matrix = f.get("count_matrix", as_matrix);
  r.timescales = f.get("timescales", as_numbers);
  r.estimator = f.get("estimator", as_string);
  if (r.estimator != "mle" && r.estimator != "bayesian") {
    throw core::CorruptionError(fmt::format(
        "{}: key 'estimator' is '{}', expected 'mle' or 'bayesian'", where, r.estimator));
  }
  r.timescale_errors = f.get_or_null("timescale_errors", as_numbers);
  r.n_metastable = f.get_or_null("n_metastable", as_integer<int>);
  r.metastable_assignments = f.get_or_null("metastable_assignments", as_integers);
  r.metastable_populations = f.get_or_null("metastable_populations", as_numbers);
  r.metastable_memberships = f.get_or_null("metastable_memberships", as_matrix);
  r.pcca_crispness = f.get_or_null("pcca_crispness", as_number);
  r.vamp2 = f.get_or_null("vamp2", as_number);
  r.its = f.get("its", as_its);
  if (f.version() >= 2) r.its_errors = f.get_or_null("its_errors", as_its);
  r.mle_converged = f.get("mle_converged", as_bool);
  r.cluster_centers = f.get_or_null("cluster_centers", as_numbers);
  r.min_segment = f.get("min_segment", as_integer<std::int64_t>);
  r.note = f.get("note", as_string);
  r.lag_guard_ok = f.get("lag_guard_ok", as_bool);
  r.criteria_met = f.get("criteria_met", as_bool);
  r.criteria = f.get("criteria", as_string);
  r.streak = f.get("streak", as_integer<int>);
  r.converged = f.get("converged", as_bool);
  r.reason = f.get("reason", as_string);
  return r;
}

}  // namespace trails::msm
