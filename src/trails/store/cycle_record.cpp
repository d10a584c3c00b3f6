#include "trails/store/cycle_record.h"

#include <cmath>
#include <limits>
#include <map>

#include "trails/core/error.h"
#include "trails/store/run_store.h"

namespace trails::store {
namespace {

using json = nlohmann::json;

// JSON has no NaN: a failed trial's progress is stored as null.
json numbers(const std::vector<double>& v) {
  json out = json::array();
  for (double x : v) out.push_back(std::isfinite(x) ? json(x) : json(nullptr));
  return out;
}

std::vector<double> numbers_from(const json& j) {
  std::vector<double> out;
  for (const auto& x : j) {
    out.push_back(x.is_null() ? std::numeric_limits<double>::quiet_NaN() : x.get<double>());
  }
  return out;
}

CycleOutcome outcome_named(const std::string& name) {
  for (CycleOutcome o : {CycleOutcome::Extended, CycleOutcome::Trial, CycleOutcome::KeptAnchor}) {
    if (to_string(o) == name) return o;
  }
  throw core::InputError("swarm cycle record: unknown outcome '" + name + "'");
}

}  // namespace

json record_number(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

double record_number_from(const json& j) {
  return j.is_null() ? std::numeric_limits<double>::quiet_NaN() : j.get<double>();
}

std::string to_string(CycleOutcome outcome) {
  switch (outcome) {
    case CycleOutcome::Extended:
      return "extended";
    case CycleOutcome::Trial:
      return "trial";
    case CycleOutcome::KeptAnchor:
      return "kept_anchor";
  }
  return "extended";
}

json to_json(const CycleRecord& r) {
  json j;
  j["chain"] = r.chain;
  j["cycle"] = r.cycle;
  j["trial_metrics"] = numbers(r.trial_metrics);
  j["probabilities"] = r.probabilities;
  j["chosen"] = r.chosen;
  j["entropy"] = r.entropy;
  j["tau2_metric"] = record_number(r.tau2_metric);
  j["outcome"] = to_string(r.outcome);
  j["anchor"] = r.anchor ? json(r.anchor->to_string()) : json(nullptr);
  j["anchor_metric"] = record_number(r.anchor_metric);
  j["anchor_cvs"] = numbers(r.anchor_cvs);
  j["reference"] = numbers(r.reference);
  j["start_cvs"] = numbers(r.start_cvs);
  j["path_steps"] = r.path_steps;
  j["ratchet"] = record_number(r.ratchet);
  j["converged"] = r.converged;
  j["stall_best"] = record_number(r.stall_best);
  j["stall_count"] = r.stall_count;
  j["steady_last"] = record_number(r.steady_last);
  j["steady_count"] = r.steady_count;
  j["stop"] = r.stop;
  j["wall_s"] = r.wall_s;
  return j;
}

CycleRecord cycle_record_from_json(const json& j) {
  try {
    CycleRecord r;
    r.chain = j.at("chain").get<int>();
    r.cycle = j.at("cycle").get<std::int64_t>();
    r.trial_metrics = numbers_from(j.at("trial_metrics"));
    r.probabilities = j.at("probabilities").get<std::vector<double>>();
    r.chosen = j.at("chosen").get<std::int64_t>();
    r.entropy = j.at("entropy").get<double>();
    r.tau2_metric = record_number_from(j.at("tau2_metric"));
    r.outcome = outcome_named(j.at("outcome").get<std::string>());
    if (!j.at("anchor").is_null()) {
      r.anchor = core::FrameKey::parse(j.at("anchor").get<std::string>());
      if (!r.anchor) throw core::InputError("swarm cycle record: bad anchor frame key");
    }
    r.anchor_metric = record_number_from(j.at("anchor_metric"));
    r.anchor_cvs = numbers_from(j.at("anchor_cvs"));
    r.reference = numbers_from(j.at("reference"));
    r.start_cvs = numbers_from(j.at("start_cvs"));
    r.path_steps = j.at("path_steps").get<std::int64_t>();
    r.ratchet = record_number_from(j.at("ratchet"));
    r.converged = j.at("converged").get<bool>();
    // Added to version 1 with the stall rules; a record without them had none set.
    r.stall_best = record_number_from(j.value("stall_best", json(nullptr)));
    r.stall_count = j.value("stall_count", std::int64_t{0});
    r.steady_last = record_number_from(j.value("steady_last", json(nullptr)));
    r.steady_count = j.value("steady_count", std::int64_t{0});
    r.stop = j.value("stop", std::string());
    r.wall_s = j.at("wall_s").get<double>();
    return r;
  } catch (const json::exception& e) {
    throw core::InputError(std::string("swarm cycle record: ") + e.what() +
                           "; the run was written by another Trails version");
  }
}

std::vector<CycleRecord> load_cycle_records(const RunStore& store) {
  std::vector<CycleRecord> out;
  const auto last = store.last_committed();
  if (!last) return out;
  const std::map<std::string, int> versions = {{kCycleRecordKey, kCycleRecordVersion}};
  for (std::int64_t i = 0; i <= *last; ++i) {
    out.push_back(cycle_record_from_json(store.load_state(i, versions).at(kCycleRecordKey)));
  }
  return out;
}

}  // namespace trails::store
