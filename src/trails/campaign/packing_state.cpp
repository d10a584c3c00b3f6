#include "trails/campaign/packing_state.h"

namespace trails::campaign {

nlohmann::json PackingState::state() const {
  if (tuner_ == nullptr) return nlohmann::json::object();
  nlohmann::json packing = tuner_->record();
  packing["dt"] = dt_;
  packing["time_unit"] = time_unit_;
  return {{kKey.key, std::move(packing)}};
}

void PackingState::restore(const nlohmann::json& state) {
  if (!state.contains(kKey.key)) return;
  earlier_.clear();
  for (const auto& t : state.at(kKey.key).at("trials"))
    earlier_.push_back(exec::trial_from_json(t));
}

void PackingState::attach(const exec::PackingTuner* tuner, double dt, std::string time_unit) {
  tuner_ = tuner;
  dt_ = dt;
  time_unit_ = std::move(time_unit);
}

}  // namespace trails::campaign
