// `trails unbind`, `trails unfold`, `trails fold` (commands.h): PathGennie's legacy command lines
// (docs/swarm.md, "PathGennie's legacy command line"). Each takes the options of its PathGennie
// script, writes the swarm configuration they mean (WORKDIR.yaml beside the run) and runs it with
// `trails swarm`'s driver and run store, so --resume, status, plots and exports work as for any
// swarm. The system is the module directory's system.py (PathGennie's `Simulation_obj`), read by
// share/trails/pathgennie_system.py; unbind's CV is the pickled pcagen.py model.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "trails/core/error.h"
#include "trails/core/python.h"
#include "trails/core/source_tree.h"
#include "trails/core/subprocess.h"
#include "trails/ligand_pca/build.h"

namespace trails::app {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

enum class Legacy { Unbind, Unfold, Fold };

struct LegacyOptions {
  Legacy mode = Legacy::Unbind;
  // unbind
  fs::path structure_file = "pbcmol.gro";
  fs::path model_file = "pca_model.pkl";
  std::string ligand_name = "LIG";
  double selection_radius = 20.0;
  // unfold, fold
  fs::path ref_config, start_config, trajectory;
  std::vector<double> target_projection{0.0, 1.0};
  int save_frequency = 50;
  double no_change_threshold = 0.01;
  // all
  fs::path module_dir = ".";
  double temperature = 355.0;
  int relax1 = 5, relax2 = 10, max_probes = 100;
  std::int64_t max_cycles = 50000;
  bool no_save = false, verbose = false;
  // Trails' own
  fs::path workdir;
  bool resume = false;
  std::uint64_t seed = 0;
};

const char* name_of(Legacy m) {
  return m == Legacy::Unbind ? "unbind" : m == Legacy::Unfold ? "unfold" : "fold";
}

fs::path existing(const fs::path& file, const std::string& option) {
  if (!fs::is_regular_file(file)) {
    throw core::UsageError(option + " " + file.string() + ": no such file");
  }
  return fs::absolute(file).lexically_normal();
}

// The integrator's time step and thermostat of system.py, which the run's engine.dt and
// engine.temperature must equal (the system is the module's own).
json describe_system(const fs::path& system_py) {
  const core::PythonInterpreter python = core::resolve_python({});
  const std::vector<std::string> argv = {
      python.program, (core::source_dir() / "share" / "trails" / "pathgennie_system.py").string(),
      system_py.string()};
  core::ProcessOptions options;
  options.stderr_tail_bytes = 16 << 10;
  options.interruptible = true;
  python.apply(options);
  const core::ProcessResult r = core::run_process(argv, options);
  if (r.status.exited_with(2)) {
    std::string tail = r.stderr_tail;
    while (!tail.empty() && tail.back() == '\n') tail.pop_back();
    throw core::ConfigError("--module_dir: " + tail.substr(tail.rfind('\n') + 1));
  }
  if (!r.status.ok()) {
    throw core::InputError("reading " + system_py.string() + ": " +
                           core::describe_failure(argv, r));
  }
  // Its platform warnings are said once, by the system's preparation that follows.
  return json::parse(r.stdout_text);
}

// The options PathGennie's scripts parse but Trails has no use for, and options no script has:
// accepted, each with a note (never refused, as unknown keys of a Trails-MD config).
void note_options(const LegacyOptions& o, const std::vector<std::string>& extras,
                  const CLI::App& sub) {
  for (const auto& word : extras) {
    if (word.rfind("--", 0) == 0 || word.rfind('-', 0) == 0) {
      fmt::print("note: {} is not an option of PathGennie's {} that Trails knows; ignored\n", word,
                 name_of(o.mode));
    }
  }
  const CLI::Option* threshold = sub.get_option_no_throw("--no_change_threshold");
  if (threshold != nullptr && threshold->count() > 0) {
    fmt::print(
        "note: --no_change_threshold has no effect: PathGennie parses it but never passes it on "
        "(its stagnation tolerance stays 0.01, as in Trails' generated configuration)\n");
  }
}

std::string yaml_list(const json& values) { return values.dump(); }

// The swarm configuration of a legacy command line (docs/swarm.md lists the mapping).
std::string legacy_config(const LegacyOptions& o, const fs::path& workdir, const json& integrator) {
  const fs::path system_py = existing(o.module_dir / "system.py", "--module_dir");
  std::string y = fmt::format(
      "# Written by `trails {0}` from PathGennie's command line (docs/swarm.md, \"PathGennie's\n"
      "# legacy command line\"); the same run: trails swarm THIS_FILE [--resume]\n"
      "workdir: {1}\n\npathgennie:\n  mode: {0}\n  tau1_steps: {2}\n  tau2_steps: {3}\n"
      "  max_trial: {4}\n  max_cycle: {5}\n  temperature: {6}\n  seed: {7}\n",
      name_of(o.mode), json(workdir.string()).dump(), o.relax1, o.relax2, o.max_probes,
      o.max_cycles, o.temperature, o.seed);
  const std::string share = (core::source_dir() / "share" / "trails").string();
  fs::path structure;
  if (o.mode == Legacy::Unbind) {
    structure = existing(o.structure_file, "--structure_file");
    const fs::path model = existing(o.model_file, "--model_file");
    const std::string ligand = "resname " + o.ligand_name;
    const ligand_pca::FeatureAtoms atoms =
        ligand_pca::feature_atoms(structure, ligand, o.selection_radius, "--ligand_name");
    y += fmt::format(
        "  save_freq: 10\n\n"
        "# unbind.py's stop: after cycle 100, centroid distance > 30 A and closest pair > 10 A\n"
        "convergence:\n  min_cycles: 101\n  module: {}\n  function: unbound\n  ca: {}\n"
        "  ligand: {}\n  com_distance: 30.0\n  min_distance: 10.0\n\n"
        "cvs:\n  - {{name: pca, kind: pca_model, file: {}, structure: {}, "
        "ligand_selection: {}, around_distance: {}}}\n",
        json(share + "/pathgennie_legacy.py").dump(), yaml_list(atoms.ca),
        yaml_list(atoms.ligand_heavy), json(model.string()).dump(), json(structure.string()).dump(),
        json(ligand).dump(), o.selection_radius);
  } else {
    structure = existing(o.start_config, "--start_config");
    const fs::path ref = existing(o.ref_config, "--ref_config");
    if (o.mode == Legacy::Unfold) {
      y += fmt::format(
          "  save_freq: {}\n  unfold_weights: [1.0, -1.0]\n  unfold_phase_cycles: 1000\n\n"
          "# unfold.py's stops: Q < 0.1 after cycle 100; 1000 anchors changing by < 0.01\n"
          "convergence:\n  cv_at_most: {{q: 0.1}}\n  min_cycles: 101\n"
          "  stagnation_window: 1000\n  stagnation_tolerance: 0.01\n",
          o.save_frequency);
    } else {
      if (o.target_projection.size() != 2) {
        throw core::UsageError("--target_projection takes 2 values (RMSD in Å, Q)");
      }
      y += fmt::format(
          "  save_freq: 10\n  target_projection: {}\n\n"
          "# fold.py's stops: distance to the target < 0.1; no gain > 1e-3 in 10000 cycles\n"
          "convergence:\n  distance_to_target: 0.1\n  stall_cycles: 10000\n"
          "  stall_tolerance: 0.001\n",
          yaml_list(o.target_projection));
    }
    y += fmt::format(
        "\n# PathGennie's CVs: heavy-atom RMSD (A, Kabsch fit) and Q to the reference\n"
        "cvs:\n  - {{name: rmsd, kind: rmsd, selection: \"protein and heavy\", reference: {0}, "
        "unit: angstrom}}\n  - {{name: q, kind: q, reference: {0}}}\n",
        json(ref.string()).dump());
  }
  y += fmt::format("\nopenmm:\n  module: {}\n  structure: {}\n", json(system_py.string()).dump(),
                   json(structure.string()).dump());
  y += fmt::format("\nengine:\n  dt: {}\n", integrator.at("dt_ps").get<double>());
  if (integrator.at("temperature_K").is_number()) {
    y += fmt::format("  temperature: {}\n", integrator.at("temperature_K").get<double>());
  }
  return y;
}

int cmd_legacy(const LegacyOptions& o, const std::vector<std::string>& extras,
               const CLI::App& sub) {
  note_options(o, extras, sub);
  if (!o.trajectory.empty()) {
    throw core::UsageError(
        "--trajectory: Trails starts from a structure file; write the trajectory's last frame "
        "as one (e.g. `gmx trjconv -f " +
        o.trajectory.string() +
        " -s START -dump LAST_TIME -o last.gro`) and give it as "
        "--start_config");
  }
  const fs::path system_py = existing(o.module_dir / "system.py", "--module_dir");
  const fs::path workdir =
      fs::absolute(o.workdir.empty() ? fs::path(std::string("pathgennie-") + name_of(o.mode))
                                     : o.workdir)
          .lexically_normal();
  const fs::path config_file = workdir.string() + ".yaml";
  const std::string text = legacy_config(o, workdir, describe_system(system_py));
  // Rewritten on --resume too: `trails swarm --resume` compares it with the stored run's
  // configuration (a raised --max_cycles is allowed, other changes are refused).
  std::ofstream(config_file) << text;
  fmt::print(
      "wrote {}: the swarm configuration of these options (trails swarm {} --resume "
      "continues it)\n",
      config_file.string(), config_file.string());
  const int rc =
      run_swarm_config(config_file, o.resume, o.verbose ? (o.mode == Legacy::Fold ? 100 : 50) : 0);
  const bool saves = o.mode == Legacy::Fold || !o.no_save;
  const fs::path path_xtc = workdir / "path_0" / "reactive_path.xtc";
  if (rc == 0 && saves && fs::exists(path_xtc)) {
    fs::copy_file(path_xtc, "trajectory.xtc", fs::copy_options::overwrite_existing);
    fmt::print("wrote trajectory.xtc (PathGennie's output: the reactive path, as {})\n",
               path_xtc.string());
  }
  return rc;
}

void add_common(CLI::App* sub, LegacyOptions& o, bool save) {
  sub->allow_extras();
  sub->add_option("--module_dir", o.module_dir, "Directory holding system.py (Simulation_obj)")
      ->default_val(".");
  sub->add_option("--temperature", o.temperature,
                  "K: the probes' velocity draws (the thermostat is system.py's)")
      ->default_val(355.0);
  sub->add_option("--relax1", o.relax1, "τ1: steps per probe")->default_val(5);
  sub->add_option("--relax2", o.relax2, "τ2: steps after an accepted probe")->default_val(10);
  sub->add_option("--max_probes", o.max_probes, "N: probes per cycle")->default_val(100);
  sub->add_option("--max_cycles", o.max_cycles, "Cycle cap")->default_val(50000);
  if (save) sub->add_flag("--no_save", o.no_save, "Do not write trajectory.xtc");
  sub->add_flag("--verbose", o.verbose, "Print the progress every 50 cycles (fold: 100)");
  sub->add_option("--workdir", o.workdir, "Trails: the run directory (default pathgennie-MODE)");
  sub->add_flag("--resume", o.resume, "Trails: continue the run from its last committed cycle");
  sub->add_option("--seed", o.seed, "Trails: master seed of the probes' velocities")
      ->default_val(0);
}

void add_configs(CLI::App* sub, LegacyOptions& o) {
  sub->add_option("--ref_config", o.ref_config, "Native structure: RMSD and Q reference")
      ->required();
  sub->add_option("--start_config", o.start_config, "Start structure")->required();
  sub->add_option("--trajectory", o.trajectory, "Start from this trajectory's last frame");
  sub->add_option("--no_change_threshold", o.no_change_threshold,
                  "Parsed by PathGennie but unused (noted)");
}

Command legacy_command(CLI::App& app, Legacy mode, const char* help) {
  auto o = std::make_shared<LegacyOptions>();
  o->mode = mode;
  auto* sub = app.add_subcommand(name_of(mode), help);
  if (mode == Legacy::Unbind) {
    sub->add_option("--structure_file", o->structure_file, "Protein-ligand structure")
        ->default_val("pbcmol.gro");
    sub->add_option("--model_file", o->model_file, "pcagen.py's PCA (joblib pickle)")
        ->default_val("pca_model.pkl");
    sub->add_option("--ligand_name", o->ligand_name, "Ligand residue name")->default_val("LIG");
    sub->add_option("--selection_radius", o->selection_radius,
                    "Å: pocket CA atoms within this distance of the ligand")
        ->default_val(20.0);
  } else {
    add_configs(sub, *o);
  }
  if (mode == Legacy::Unfold) {
    sub->add_option("--save_frequency", o->save_frequency, "A path frame every this many cycles")
        ->default_val(50);
  }
  if (mode == Legacy::Fold) {
    sub->add_option("--target_projection", o->target_projection, "Target (RMSD in Å, Q)")
        ->expected(2)
        ->default_str("0.0 1.0");
  }
  add_common(sub, *o, mode != Legacy::Fold);
  return {sub, [o, sub] { return cmd_legacy(*o, sub->remaining(), *sub); }};
}

}  // namespace

Command add_unbind(CLI::App& app) {
  return legacy_command(app, Legacy::Unbind,
                        "PathGennie's unbind command line (a ligand leaves its pocket)");
}
Command add_unfold(CLI::App& app) {
  return legacy_command(app, Legacy::Unfold, "PathGennie's unfolder command line");
}
Command add_fold(CLI::App& app) {
  return legacy_command(app, Legacy::Fold, "PathGennie's folder command line");
}

}  // namespace trails::app
