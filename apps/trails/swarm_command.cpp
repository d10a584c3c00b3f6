// `trails swarm CONFIG [--resume]` (commands.h): PathGennie's swarm path generation
// (docs/swarm.md), then every chain's outputs rebuilt from the run store.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include <unistd.h>

#include <fmt/format.h>

#include "commands.h"
#include "duration_text.h"
#include "trails/config/config_kind.h"
#include "trails/config/execution_spec.h"
#include "trails/config/swarm_config.h"
#include "trails/core/error.h"
#include "trails/exec/backend.h"
#include "trails/exec/mpi/mpi_world.h"
#include "trails/report/swarm/swarm_outputs.h"
#include "trails/report/swarm/swarm_subframes.h"
#include "trails/swarm/subframes.h"
#include "trails/swarm/swarm_driver.h"

namespace trails::app {
namespace {

namespace fs = std::filesystem;

// On a terminal one live line; otherwise a line per second at most, and one per finished chain.
class SwarmConsole final : public swarm::SwarmProgress {
 public:
  SwarmConsole(std::FILE* out, int verbose_every)
      : out_(out), tty_(::isatty(::fileno(out)) != 0), verbose_every_(verbose_every) {}
  void started(const std::vector<std::string>& banner) override {
    for (const auto& line : banner) fmt::print(out_, "{}\n", line);
    std::fflush(out_);
  }
  void cycle(const swarm::CycleReport& r) override {
    done_ = r.cycles_committed;
    if (verbose_every_ > 0 && r.cycle % verbose_every_ == 0) {  // PathGennie's --verbose
      fmt::print(out_, "{}path {} cycle {}: progress {:.6g}\n", tty_ ? "\r\x1b[K" : "", r.chain,
                 r.cycle, r.anchor_metric);
    }
    if (first_ < 0) first_ = r.cycles_committed - 1, first_s_ = r.elapsed_s;
    const double rate =
        (r.elapsed_s - first_s_) > 0.0
            ? static_cast<double>(r.cycles_committed - first_) / (r.elapsed_s - first_s_)
            : 0.0;
    const double eta =
        rate > 0.0 ? static_cast<double>(r.cycles_total - r.cycles_committed) / rate : -1.0;
    const std::string line = fmt::format(
        "cycle {:>6} of {:>6} | path {} cycle {} progress {:.4g}{} | {} running | {:.1f} cycles/s "
        "| ETA <= {}",
        r.cycles_committed, r.cycles_total, r.chain, r.cycle, r.anchor_metric,
        r.converged ? " converged" : "", r.chains_running, rate, duration_text(eta));
    if (tty_) {
      fmt::print(out_, "\r{}\x1b[K", line);
      std::fflush(out_);
    } else if (r.converged || r.elapsed_s - last_print_ >= 1.0) {
      fmt::print(out_, "{}\n", line);
      std::fflush(out_);
      last_print_ = r.elapsed_s;
    }
  }
  void finished(const swarm::SwarmOutcome& o) override {
    if (tty_ && done_ > 0) fmt::print(out_, "\n");
    for (const auto& c : o.chains) {
      fmt::print(out_, "path {}: {} cycle(s), {}, final progress {:.6g}\n", c.chain, c.cycles,
                 c.converged      ? "converged"
                 : c.stop.empty() ? "not converged"
                                  : c.stop,
                 c.anchor_metric);
    }
    fmt::print(out_, "Ran {} cycle(s) in {}\n", o.cycles_run, duration_text(o.wall_s));
  }

 private:
  std::FILE* out_;
  bool tty_;
  int verbose_every_;
  std::int64_t done_ = 0;
  std::int64_t first_ = -1;
  double first_s_ = 0.0;
  double last_print_ = -1e9;
};

// Replays the chosen trials and extensions into a continuous path per chain and says whether
// every replayed segment end is bitwise the stored anchor (docs/swarm.md, "Subframes").
void write_subframes(const config::SwarmConfig& config) {
  const auto paths = swarm::replay_subframes(config);
  for (std::size_t k = 0; k < paths.size(); ++k) {
    const auto& p = paths[k];
    if (p.mismatched_cycles.empty()) {
      fmt::print("subframes: path {}: {} frame(s); all {} replayed anchors match bitwise\n", k,
                 p.n_frames(), p.anchors_replayed);
    } else {
      fmt::print(stderr,
                 "warning: subframes: path {}: {} of {} replayed anchors differ from the stored "
                 "ones (first: cycle {}); the engine is not deterministic per seed "
                 "(docs/engines.md), so the subframes are a nearby path, not the path\n",
                 k, p.mismatched_cycles.size(), p.anchors_replayed, p.mismatched_cycles.front());
    }
  }
  for (const auto& f : report::write_swarm_subframes(config.workdir, paths)) {
    fmt::print("wrote {}\n", f.string());
  }
}

}  // namespace

int run_swarm_config(const fs::path& config_file, bool resume, int verbose_every) {
  // Under mpirun every rank runs this same command line; rank 0 drives the swarm, the others
  // run its trials (execution.backend: mpi; docs/execution.md, "The swarm and the backends").
  std::optional<exec::MpiWorld> world;
  if (exec::MpiWorld::launched()) {
    world.emplace();
    if (world->rank() != 0) return serve_as_worker_rank(*world);
  }
  if (config::is_campaign_config(config_file)) {
    throw core::UsageError(config_file.string() +
                           " is a campaign config (it has no `pathgennie:` block): run it with "
                           "`trails run " +
                           config_file.string() + "`");
  }
  const auto config = config::load_swarm_config(config_file);
  check_mpi_launch(config::execution_spec_of(config), "swarm", world ? &*world : nullptr);
  // Before any trial starts (docs/execution.md, "No walker outlives its driver").
  const auto guard = exec::guard_walker_programs(config::execution_spec_of(config));
  SwarmConsole console(stdout, verbose_every);
  (void)swarm::run_swarm(config, resume, console);
  for (const auto& f : report::write_swarm_outputs(config.workdir)) {
    fmt::print("wrote {}\n", f.string());
  }
  if (config.swarm.save_subframes) write_subframes(config);
  return 0;
}

Command add_swarm(CLI::App& app) {
  struct Options {
    fs::path config;
    bool resume = false;
  };
  auto o = std::make_shared<Options>();
  auto* sub = app.add_subcommand(
      "swarm", "Generate reactive paths by swarms of ultrashort trials (PathGennie)");
  sub->add_option("CONFIG", o->config, "Swarm configuration (YAML, a `pathgennie:` block)")
      ->required();
  sub->add_flag("--resume", o->resume, "Continue the run from its last committed cycle");
  return {sub, [o] { return run_swarm_config(o->config, o->resume, 0); }};
}

}  // namespace trails::app
