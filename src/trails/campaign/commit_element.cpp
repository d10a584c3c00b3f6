#include "trails/campaign/commit_element.h"

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
  it.rec.state = campaign_state();
  it.rec.runner_s = it.runner_s;
  it.rec.analysis_s = seconds_since(it.t_analysis);
  const auto t_commit = IterationState::Clock::now();
  store_.commit(it.rec, std::move(*it.shard));
  it.commit_s = seconds_since(t_commit);
  clear_partial(outdir_);  // what a stopped run kept of this iteration is committed now
  core::crash_point("after-commit", it.iteration);
}

}  // namespace trails::campaign
