// Private to the campaign module: the campaign's elements (docs/architecture.md, "Campaign
// elements") on the shared interface of core/element.h. An IterationElement is one named step
// of the iteration list the driver runs top to bottom; a CheckpointClient owns state that
// carries across iterations under stable ledger keys. A step that keeps nothing (segments, log)
// is a StepElement. Elements hold non-owning references to the driver's shared data (the frame
// history, the store); the driver owns every element and outlives them.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/campaign/iteration_state.h"
#include "trails/core/element.h"

namespace trails::campaign {

// The shared interface (core/element.h): an iteration's elements run over IterationState.
using core::CheckpointClient;
using core::StateKey;
using IterationElement = core::Element<IterationState>;

// A step with no state of its own: a named function over the iteration.
class StepElement final : public IterationElement {
 public:
  StepElement(std::string name, std::function<void(IterationState&)> run)
      : name_(std::move(name)), run_(std::move(run)) {}
  std::string_view name() const override { return name_; }
  void run(IterationState& it) override { run_(it); }

 private:
  std::string name_;
  std::function<void(IterationState&)> run_;
};

}  // namespace trails::campaign
