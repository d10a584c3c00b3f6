#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/learned/model.h"

namespace trails::learned {

nlohmann::json TrainingRecord::to_json() const {
  nlohmann::json j;
  j["epochs_run"] = epochs_run;
  j["loss"] = loss;
  j["vamp2"] = vamp2 ? nlohmann::json(*vamp2) : nlohmann::json(nullptr);
  j["spib_label_changes"] = spib_label_changes;
  j["spib_initial_states"] =
      spib_initial_states ? nlohmann::json(*spib_initial_states) : nlohmann::json(nullptr);
  j["spib_final_states"] =
      spib_final_states ? nlohmann::json(*spib_final_states) : nlohmann::json(nullptr);
  return j;
}

TrainingRecord TrainingRecord::from_json(const nlohmann::json& j) {
  try {
    TrainingRecord r;
    r.epochs_run = j.at("epochs_run").get<int>();
    r.loss = j.at("loss").get<std::vector<double>>();
    if (!j.at("vamp2").is_null()) r.vamp2 = j.at("vamp2").get<double>();
    r.spib_label_changes = j.at("spib_label_changes").get<std::vector<double>>();
    if (!j.at("spib_initial_states").is_null())
      r.spib_initial_states = j.at("spib_initial_states").get<int>();
    if (!j.at("spib_final_states").is_null())
      r.spib_final_states = j.at("spib_final_states").get<int>();
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw core::CorruptionError(fmt::format("learned model training record: {}", e.what()));
  }
}

}  // namespace trails::learned
