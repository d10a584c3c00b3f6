// Private to the campaign module: the two faces of a campaign element (docs/architecture.md,
// "Campaign elements"). An IterationElement is one named step of the iteration list the driver
// runs top to bottom; a CheckpointClient owns state that carries across iterations and commits
// it under stable ledger keys, with one state()/restore() pair serving both the commit and
// --resume. A stateful element is both; a step that keeps nothing (segments, log) only the
// first. Elements hold non-owning references to the driver's shared data (the frame history,
// the store); the driver owns every element and outlives them.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/campaign/iteration_state.h"

namespace trails::campaign {

// One element's state in the ledger: its element_state key and the blob's version.
struct StateKey {
  const char* key;
  int version;
};

class IterationElement {
 public:
  virtual ~IterationElement() = default;
  // The step's name in the debug timing log and in docs/architecture.md.
  virtual std::string_view name() const = 0;
  virtual void run(IterationState& it) = 0;
};

class CheckpointClient {
 public:
  virtual ~CheckpointClient() = default;
  // When restore() may run on resume: Early, straight from the ledger; AfterHistory, once the
  // frame history holds every committed frame again (state that refers to frames).
  enum class RestorePhase { Early, AfterHistory };
  // The keys this element may write; every one of them is in campaign_state_versions().
  virtual std::vector<StateKey> state_keys() const = 0;
  // The element's blobs now, key -> value (a JSON object; an element may write none).
  virtual nlohmann::json state() const = 0;
  // Takes back what state() wrote, from the whole committed state (key -> value).
  virtual void restore(const nlohmann::json& state) = 0;
  virtual RestorePhase restore_phase() const { return RestorePhase::Early; }
};

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
