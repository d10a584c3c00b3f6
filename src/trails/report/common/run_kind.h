// The one place a report opens a run directory and says what kind of run it holds
// (docs/architecture.md, "The report rooms"): a campaign (`trails run`) or a swarm (`trails
// swarm`). Every command opens its run here and branches on `kind` at most once; a command that
// reads a campaign's sampling opens it with open_campaign_run, which refuses a swarm run.
// Read-only (safe on a run being written); errors are those of store::RunStore::open, and
// UsageError (exit 2) for a swarm run given to a campaign-only command.
#pragma once

#include <filesystem>
#include <string_view>

#include "trails/store/run_store.h"

namespace trails::report {

enum class RunKind { Campaign, Swarm };

// "campaign" or "swarm", as `trails status` and the report page name the kind.
std::string_view to_string(RunKind kind);

// What made the run in `meta`, from the configuration its ledger stores.
RunKind run_kind(const store::RunMeta& meta);

struct OpenedRun {
  std::filesystem::path dir;
  store::RunStore store;
  RunKind kind = RunKind::Campaign;
};

OpenedRun open_run(const std::filesystem::path& run_dir);

// Opens a run for `command` (e.g. "trails analyze"), which works on a campaign only: a swarm
// run is a UsageError that says what the command does (`does`; by default: it analyses a
// campaign's sampling, and a swarm's stored frames are path anchors, not samples of an
// ensemble) and where a swarm's results are read instead.
OpenedRun open_campaign_run(const std::filesystem::path& run_dir, std::string_view command,
                            std::string_view does = {});

}  // namespace trails::report
