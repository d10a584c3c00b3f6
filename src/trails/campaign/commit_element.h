// Private to the campaign module: the commit element (docs/architecture.md, "Campaign
// elements"). Gathers every checkpoint client's keyed state into the record and commits record
// and shard atomically (docs/file-formats.md, "When a shard is written"); what a stopped run
// kept in partial/ is committed with it and removed. Its own key, "target_iterations", is the
// iteration count this run aims at (trails status reads it; nothing restores it).
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "trails/campaign/campaign_element.h"
#include "trails/store/run_store.h"

namespace trails::campaign {

class CommitElement final : public IterationElement, public CheckpointClient {
 public:
  static constexpr StateKey kKey{"target_iterations", 1};

  // `clients`: every stateful element, in the driver's order (this one is added to them).
  CommitElement(std::vector<const CheckpointClient*> clients, std::int64_t target_iterations,
                store::RunStore& store, std::filesystem::path outdir);

  std::string_view name() const override { return "commit"; }
  void run(IterationState& it) override;

  std::vector<StateKey> state_keys() const override { return {kKey}; }
  nlohmann::json state() const override { return {{kKey.key, target_iterations_}}; }
  void restore(const nlohmann::json& /*state*/) override {}

  // The state the next commit stores: every client's blobs.
  nlohmann::json campaign_state() const;

 private:
  std::vector<const CheckpointClient*> clients_;
  std::int64_t target_iterations_;
  store::RunStore& store_;
  std::filesystem::path outdir_;
};

}  // namespace trails::campaign
