// Private to the campaign module: the state of execution.workers_per_device: auto as a
// checkpoint client (docs/execution.md, "Devices and packing"). The tuner's search so far is
// committed with each iteration under key "packing" (with the engine's step, so reports can turn
// steps/s into ns/day) and handed back to the next tuner on resume, which continues it.
#pragma once

#include <string>
#include <vector>

#include "trails/campaign/campaign_element.h"
#include "trails/exec/local/packing_tuner.h"

namespace trails::campaign {

class PackingState final : public CheckpointClient {
 public:
  static constexpr StateKey kKey{"packing", 1};

  std::vector<StateKey> state_keys() const override { return {kKey}; }
  // Nothing while no tuner runs (a fixed workers_per_device).
  nlohmann::json state() const override;
  void restore(const nlohmann::json& state) override;

  // The tuner the executor is (non-owning), and the engine's step and its unit.
  void attach(const exec::PackingTuner* tuner, double dt, std::string time_unit);
  // The trials a resumed run's tuner continues from (empty for a new run).
  const std::vector<exec::PackingTrial>& earlier() const { return earlier_; }

 private:
  const exec::PackingTuner* tuner_ = nullptr;
  double dt_ = 0.0;
  std::string time_unit_;
  std::vector<exec::PackingTrial> earlier_;
};

}  // namespace trails::campaign
