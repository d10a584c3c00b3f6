#include "trails/campaign/commit_element.h"

#include <spdlog/spdlog.h>

#include "trails/campaign/checkpoint.h"
#include "trails/campaign/partial_iteration.h"
#include "trails/core/crash_point.h"

namespace trails::campaign {

CommitElement::CommitElement(std::vector<const CheckpointClient*> clients,
                             std::int64_t target_iterations, store::RunStore& store,
                             std::filesystem::path outdir)
    : clients_(std::move(clients)),
      target_iterations_(target_iterations),
      store_(store),
      outdir_(std::move(outdir)) {
  clients_.push_back(this);
}

nlohmann::json CommitElement::campaign_state() const { return state_of(clients_); }

void CommitElement::run(IterationState& it) {
  const auto t_state = IterationState::Clock::now();
  it.rec.state = campaign_state();
  // The elements' state (a new network's weights among them: docs/performance.md,
  // "Learned-space overhead per iteration") apart from the store's commit.
  spdlog::debug("iteration {}: state {:.4f} s", it.iteration, seconds_since(t_state));
  it.rec.runner_s = it.runner_s;
  it.rec.analysis_s = seconds_since(it.t_analysis);
  const auto t_commit = IterationState::Clock::now();
  store_.commit(it.rec, std::move(*it.shard));
  it.commit_s = seconds_since(t_commit);
  clear_partial(outdir_);  // what a stopped run kept of this iteration is committed now
  core::crash_point("after-commit", it.iteration);
}

}  // namespace trails::campaign
