#include "trails/report/common/run_kind.h"

#include <fmt/format.h>

#include "trails/core/error.h"

namespace trails::report {

std::string_view to_string(RunKind kind) { return kind == RunKind::Swarm ? "swarm" : "campaign"; }

// Only `trails swarm` stores a pathgennie block (docs/swarm.md, "Keys").
RunKind run_kind(const store::RunMeta& meta) {
  return meta.config.contains("pathgennie") ? RunKind::Swarm : RunKind::Campaign;
}

OpenedRun open_run(const std::filesystem::path& run_dir) {
  auto store = store::RunStore::open(run_dir, store::RunStore::Mode::ReadOnly);
  const RunKind kind = run_kind(store.meta());
  return {run_dir, std::move(store), kind};
}

OpenedRun open_campaign_run(const std::filesystem::path& run_dir, std::string_view command,
                            std::string_view does) {
  auto run = open_run(run_dir);
  if (run.kind == RunKind::Swarm) {
    throw core::UsageError(fmt::format(
        "{} is a swarm run (trails swarm): {} {} (docs/swarm.md, \"Outputs\")", run_dir.string(),
        command,
        does.empty() ? "analyses a campaign's sampling, and a swarm stores path anchors, not an "
                       "ensemble; read it with trails status, plot, path or export"
                     : does));
  }
  return run;
}

}  // namespace trails::report
