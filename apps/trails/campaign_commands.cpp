// `trails run`, `trails check` and `trails init` (commands.h).
#include <charconv>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "commands.h"
#include "console_progress.h"
#include "trails/campaign/campaign.h"
#include "trails/campaign/preflight.h"
#include "trails/config/execution_spec.h"
#include "trails/config/load.h"
#include "trails/config/swarm_config.h"
#include "trails/config/template.h"
#include "trails/core/error.h"
#include "trails/core/output_target.h"
#include "trails/core/source_tree.h"
#include "trails/core/temp_dir.h"
#include "trails/exec/backend.h"
#include "trails/exec/mpi/mpi_world.h"
#include "trails/store/rewind.h"
#include "trails/store/run_store.h"
#include "trails/swarm/swarm_driver.h"

namespace trails::app {
namespace fs = std::filesystem;

namespace {

// The banner with one more line: where the iteration target came from when no one set it.
class NotedProgress final : public campaign::ProgressSink {
 public:
  NotedProgress(campaign::ProgressSink& inner, std::string note)
      : inner_(inner), note_(std::move(note)) {}
  void started(const std::vector<std::string>& banner) override {
    auto lines = banner;
    if (!note_.empty()) lines.push_back(note_);
    inner_.started(lines);
  }
  void iteration(const campaign::IterationReport& report) override { inner_.iteration(report); }
  void walkers(const store::WalkerProgress& progress) override { inner_.walkers(progress); }
  void finished(const campaign::CampaignOutcome& outcome) override { inner_.finished(outcome); }

 private:
  campaign::ProgressSink& inner_;
  std::string note_;
};

// "[json.exception.type_error.316] invalid UTF-8 byte ..." -> "invalid UTF-8 byte ...".
std::string without_library_prefix(const std::string& what) {
  if (what.rfind("[json.exception.", 0) == 0) {
    if (const auto end = what.find("] "); end != std::string::npos) return what.substr(end + 2);
  }
  return what;
}

// Library exceptions that can escape check/run, as messages naming the config and what to do.
[[noreturn]] void rethrow_translated(const fs::path& config_file) {
  const std::string file = config_file.string();
  try {
    throw;
  } catch (const core::Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw core::InputError(file +
                           ": ran out of memory; lower spawning.walker or spawning.step, or "
                           "raise spawning.stride (nothing of this run was kept)");
  } catch (const nlohmann::json::exception& e) {
    throw core::InternalError(file + ": a value could not be stored as JSON (" +
                              without_library_prefix(e.what()) +
                              "); make sure the file is UTF-8 text, otherwise report this bug");
  } catch (const fs::filesystem_error& e) {
    throw core::InputError(file + ": " + e.code().message() + " on " + e.path1().string() +
                           "; check outdir and the paths in the config");
  } catch (const std::system_error& e) {
    throw core::InputError(file + ": the system refused a resource (" + e.code().message() +
                           "); if it names threads or resources, lower spawning.max_workers");
  }
}

// `trails run --resume N` (Trails-MD's `--resume N`; docs/reliability.md, "Resuming from an
// earlier iteration"): the run as it is is first copied whole beside it (readable by every
// command), then the iterations after N are removed from the run, which continues from N. Since
// a run is deterministic, the continuation recomputes the same iterations.
void rewind_run(const config::CampaignConfig& config, std::int64_t n) {
  const std::optional<std::int64_t> last =
      store::RunStore::open(config.outdir, store::RunStore::Mode::ReadOnly).last_committed();
  if (!last || n > *last) {
    throw core::UsageError(fmt::format(
        "--resume {}: {} has {}; give a committed iteration or --resume alone", n,
        config.outdir.string(),
        last ? fmt::format("committed iterations 0..{}", *last) : "no committed iteration"));
  }
  if (n == *last) return;  // the plain resume
  fs::path aside = config.outdir.string() + fmt::format(".superseded-after-{}", n);
  for (int k = 2; fs::exists(aside); ++k) {
    aside = config.outdir.string() + fmt::format(".superseded-after-{}-{}", n, k);
  }
  fs::copy(config.outdir, aside, fs::copy_options::recursive);
  store::rewind_to(config.outdir, n);
  // output.log keeps its header and the rows of iterations 0..n (the continuation appends).
  const fs::path log = config.outdir / "output.log";
  if (fs::exists(log)) {
    std::ifstream in(log);
    std::string kept;
    for (std::string line; std::getline(in, line);) {
      std::int64_t it = 0;
      const auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), it);
      if (ec == std::errc() && end != line.data() && it > n) continue;
      kept += line + "\n";
    }
    const fs::path tmp = log.string() + ".tmp";
    std::ofstream(tmp) << kept;
    fs::rename(tmp, log);
  }
  fmt::print(
      "--resume {}: iterations {}..{} moved aside to {} (the whole run as it was, readable by "
      "trails status, export and plot); continuing from iteration {}\n",
      n, n + 1, *last, aside.string(), n);
}

int cmd_run(const fs::path& config_file, std::optional<std::int64_t> iterations, bool resume,
            std::optional<std::int64_t> resume_from = std::nullopt) {
  // Under mpirun every rank runs this same command line; only rank 0 reads the configuration.
  std::optional<exec::MpiWorld> world;
  if (exec::MpiWorld::launched()) {
    world.emplace();
    if (world->rank() != 0) return serve_as_worker_rank(*world);
  }
  if (config::is_swarm_config(config_file)) {
    throw core::UsageError(config_file.string() +
                           " is a swarm configuration (it has a `pathgennie:` block); run it "
                           "with `trails swarm " +
                           config_file.string() + "`");
  }
  const auto config = config::load_campaign_config(config_file);
  check_mpi_launch(config::execution_spec_of(config), "run", world ? &*world : nullptr);
  // Before any walker starts (docs/execution.md, "No walker outlives its driver").
  const auto guard = exec::guard_walker_programs(config::execution_spec_of(config));
  campaign::RunOptions options;
  options.resume = resume;
  options.target_iterations = iterations.value_or(config.iterations.value_or(1));
  std::string note;
  if (!iterations && !config.iterations) {
    note =
        "  note        neither --iterations nor `iterations` is set: 1 iteration (Trails-MD's "
        "default)";
  }
  if (resume) {
    // Asking for no more than the run has is not an error, but it runs nothing: say so and
    // write nothing (docs/reliability.md, "What check verifies before a run").
    campaign::preflight(config, true);
    if (resume_from) rewind_run(config, *resume_from);
    const auto last =
        store::RunStore::open(config.outdir, store::RunStore::Mode::ReadOnly).last_committed();
    const std::int64_t committed = last ? *last + 1 : 0;
    if (committed >= options.target_iterations) {
      fmt::print(
          "Completed 0 iteration(s) ({} committed in total): {} already reaches the target of {}, "
          "so nothing was run or changed; raise --iterations above {} to continue.\n",
          committed, config.outdir.string(), options.target_iterations, committed);
      return 0;
    }
  }
  ConsoleProgress console(stdout);
  NotedProgress progress(console, note);
  try {
    (void)campaign::run_campaign(config, options, progress);
  } catch (...) {
    rethrow_translated(config_file);
  }
  // Unless stdout is gone (`trails run … | head`): the campaign succeeded all the same.
  if (std::ferror(stdout) == 0) fmt::print("Output: {}\n", config.outdir.string());
  return 0;
}

// `trails check` of a swarm configuration (a `pathgennie:` block): its own loader and the
// checks `trails swarm` makes before writing anything (docs/swarm.md, "Checking a configuration").
int cmd_check_swarm(const fs::path& config_file, bool resume) {
  if (resume) {
    throw core::UsageError(config_file.string() + " is a swarm configuration; `trails swarm " +
                           config_file.string() +
                           " --resume` checks the stored run when it continues it");
  }
  const auto config = config::load_swarm_config(config_file);
  const core::TempDir scratch("trails-check");
  try {
    swarm::check_swarm(config, scratch.path());
  } catch (...) {
    rethrow_translated(config_file);
  }
  for (const auto& note : config.notes) fmt::print("note: {}\n", note);
  fmt::print("Preflight checks passed. Output directory: {}\n", config.workdir.string());
  return 0;
}

int cmd_check(const fs::path& config_file, bool resume) {
  if (config::is_swarm_config(config_file)) return cmd_check_swarm(config_file, resume);
  const auto config = config::load_campaign_config(config_file);
  // A run that already exists is checked as its continuation, read-only, instead of refused
  // (docs/reliability.md, "What check verifies before a run").
  const bool existing_run =
      !resume && campaign::inspect_run_dir(config.outdir) == campaign::RunDirState::RunStore;
  try {
    campaign::preflight(config, resume || existing_run);
    campaign::check_engine_and_cvs(config);
  } catch (...) {
    rethrow_translated(config_file);
  }
  // Keys accepted without effect, said once (docs/trails-md-compatibility.md#compat-ignored-keys).
  for (const auto& note : config.notes) fmt::print("note: {}\n", note);
  if (existing_run) {
    fmt::print(
        "note: {} already holds a run: checked as its continuation, read-only (continue it with "
        "`trails run {} --resume`; without --resume `trails run` refuses the directory)\n",
        config.outdir.string(), config_file.string());
  }
  fmt::print("Preflight checks passed. Output directory: {}\n", config.outdir.string());
  return 0;
}

// `trails init` templates: the built-in Müller–Brown campaign (config/template.h) and the
// annotated files of share/trails/templates/ (docs/quickstart.md, "Templates").
struct InitTemplate {
  const char* name;
  const char* file;  // under share/trails/templates; nullptr: campaign_template()
  const char* what;
  const char* next;  // the command that runs it
};
constexpr InitTemplate kTemplates[] = {
    {"muller-brown", nullptr, "built-in Müller–Brown campaign (runs anywhere in seconds)",
     "trails run"},
    {"openmm", "openmm.yaml", "OpenMM campaign from a PDB and force-field XML files", "trails run"},
    {"gromacs", "gromacs.yaml", "GROMACS campaign from start.gro and topol.top", "trails run"},
    {"we-kinetics", "we-kinetics.yaml",
     "weighted-ensemble kinetics campaign with recycling (built-in double well)", "trails run"},
    {"swarm", "swarm.yaml", "PathGennie swarm path generation (built-in Müller–Brown)",
     "trails swarm"},
};

std::string template_text(const InitTemplate& t) {
  if (t.file == nullptr) return std::string(config::campaign_template());
  const fs::path file = core::source_dir() / "share" / "trails" / "templates" / t.file;
  std::ifstream in(file);
  if (!in) throw core::InputError(file.string() + ": the template is missing from the source tree");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

int cmd_init(const fs::path& output, bool force, const std::string& name, bool list) {
  if (list) {
    for (const auto& t : kTemplates) fmt::print("{:<13} {}\n", t.name, t.what);
    fmt::print("Write one with: trails init --template NAME [-o FILE]\n");
    return 0;
  }
  const InitTemplate* chosen = nullptr;
  std::string names;
  for (const auto& t : kTemplates) {
    if (name == t.name) chosen = &t;
    names += (names.empty() ? "" : ", ") + std::string(t.name);
  }
  if (chosen == nullptr) {
    throw core::UsageError("--template " + name + ": no such template; the templates are " + names +
                           " (trails init --list)");
  }
  // Refuses store files, devices and the like even with --force
  // (docs/reliability.md#inputs-and-outputs).
  const auto target = core::check_output("init --output", output);
  if (fs::exists(target.path) && !force) {
    throw core::UsageError(output.string() + " already exists; use --force to overwrite it");
  }
  core::write_output(target, template_text(*chosen));
  fmt::print("Wrote {}. Next: trails check {} && {} {}\n", output.string(), output.string(),
             chosen->next, output.string());
  return 0;
}

// The configuration file, given as CONFIG or as Trails-MD's `--config CONFIG` (one of them).
struct ConfigArgument {
  fs::path positional;
  fs::path option;

  void add_to(CLI::App* sub) {
    auto* pos = sub->add_option("CONFIG", positional, "Campaign configuration (YAML)");
    auto* opt = sub->add_option("--config", option,
                                "The same, as Trails-MD's command line spells it (trails-md "
                                "--config CONFIG)");
    pos->excludes(opt);
  }
  fs::path get(const std::string& command) const {
    if (positional.empty() && option.empty()) {
      throw core::UsageError("trails " + command +
                             ": give the campaign configuration, as `trails " + command +
                             " CONFIG` or `trails " + command + " --config CONFIG`");
    }
    return positional.empty() ? option : positional;
  }
};

}  // namespace

Command add_run(CLI::App& app, std::string& log_level) {
  struct Options {
    ConfigArgument config;
    std::optional<std::int64_t> iterations;
    std::vector<std::string> resume_args;
    bool check = false;
  };
  auto o = std::make_shared<Options>();
  auto* run = app.add_subcommand("run", "Run (or continue) an adaptive campaign");
  o->config.add_to(run);
  run->add_option("--iterations", o->iterations, "Total iteration target of the campaign")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            std::int64_t n = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
            if (ec != std::errc() || end != text.data() + text.size() || n < 0) {
              return "must be a whole number of iterations >= 0 (at most " +
                     std::to_string(std::numeric_limits<std::int64_t>::max()) + "), got " + text;
            }
            return {};
          },
          "INT>=0"));
  // --resume [latest|N], as Trails-MD's command line (N: continue from committed iteration N).
  run->add_option("--resume", o->resume_args,
                  "Continue the campaign from its last committed iteration, or from committed "
                  "iteration N (later ones are moved aside, never deleted)")
      ->expected(0, 1);
  // Trails-MD's `trails-md --config X --check` (docs/trails-md-compatibility.md#compat-cli).
  run->add_flag("--check", o->check,
                "Only validate and run the preflight checks, as `trails check` (writes nothing)");
  run->add_option("--log-level", log_level, "trace|debug|info|warning|error|off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warning", "error", "off"}));
  return {run, [o, run] {
            const bool resume = run->count("--resume") > 0;
            std::optional<std::int64_t> from;
            // `--resume` alone gives no value (or an empty one): the last commit.
            if (!o->resume_args.empty() && !o->resume_args[0].empty() &&
                o->resume_args[0] != "latest") {
              const std::string& v = o->resume_args[0];
              std::int64_t n = 0;
              const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
              if (ec == std::errc() && end == v.data() + v.size() && n >= 0) {
                from = n;
              } else if (o->config.positional.empty() && o->config.option.empty()) {
                o->config.positional = v;  // `trails run --resume CONFIG`
              } else {
                throw core::UsageError(
                    "--resume takes `latest` or a committed iteration N >= 0, "
                    "got '" +
                    v + "'");
              }
            }
            const fs::path config = o->config.get("run");
            if (o->check && from) {
              throw core::UsageError("--check with --resume N: check the run with --resume alone");
            }
            return o->check ? cmd_check(config, resume)
                            : cmd_run(config, o->iterations, resume, from);
          }};
}

Command add_check(CLI::App& app) {
  struct Options {
    ConfigArgument config;
    bool resume = false;
  };
  auto o = std::make_shared<Options>();
  auto* check = app.add_subcommand(
      "check", "Validate a configuration and run preflight checks; writes nothing");
  o->config.add_to(check);
  check->add_flag("--resume", o->resume, "Check as for `trails run --resume`");
  return {check, [o] { return cmd_check(o->config.get("check"), o->resume); }};
}

Command add_init(CLI::App& app) {
  struct Options {
    fs::path output = "config.yaml";
    bool force = false;
    std::string name = "muller-brown";
    bool list = false;
  };
  auto o = std::make_shared<Options>();
  auto* init = app.add_subcommand("init", "Write an annotated template configuration");
  init->add_option("-o,--output", o->output, "File to write");
  init->add_flag("--force", o->force, "Overwrite an existing file");
  init->add_option("-t,--template", o->name, "Which template (trails init --list)")
      ->default_val("muller-brown");
  init->add_flag("--list", o->list, "List the templates");
  return {init, [o] { return cmd_init(o->output, o->force, o->name, o->list); }};
}

}  // namespace trails::app
