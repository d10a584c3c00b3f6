// The two faces of a driver element (docs/architecture.md, "Elements"), shared by the campaign's
// iteration and the swarm chain's cycle. An Element<State> is one named step of the list a
// driver runs over its State (the campaign's IterationState, a swarm chain's ChainCycle); a
// CheckpointClient owns state that carries across iterations or cycles and commits it under
// stable ledger keys, with one state()/restore() pair serving both the commit and --resume. A
// stateful element is both; a step that keeps nothing only the first. Elements hold non-owning
// references to their driver's shared data; the driver owns every element and outlives them.
#pragma once

#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace trails::core {

// One element's state in the ledger: its key and the blob's version.
struct StateKey {
  const char* key;
  int version;
};

template <class State>
class Element {
 public:
  virtual ~Element() = default;
  // The step's name in the debug timing log and in docs/architecture.md.
  virtual std::string_view name() const = 0;
  virtual void run(State& state) = 0;
};

class CheckpointClient {
 public:
  virtual ~CheckpointClient() = default;
  // When restore() may run on resume: Early, straight from the ledger; AfterHistory, once the
  // driver has rebuilt the data the state refers to (the campaign's frame history).
  enum class RestorePhase { Early, AfterHistory };
  // The keys this element may write (the campaign: every one of them is in
  // campaign_state_versions(); the swarm: the cycle record's key).
  virtual std::vector<StateKey> state_keys() const = 0;
  // The element's blobs now, key -> value (a JSON object; an element may write none).
  virtual nlohmann::json state() const = 0;
  // Takes back what state() wrote, from the whole committed state (key -> value).
  virtual void restore(const nlohmann::json& state) = 0;
  virtual RestorePhase restore_phase() const { return RestorePhase::Early; }
};

}  // namespace trails::core
