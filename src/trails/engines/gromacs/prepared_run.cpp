// Preparation (prepared_run.h): digest, grompp into a temporary directory renamed into place,
// masses from `gmx dump`, field layout; a later engine (a resume, a worker process) only reads.
#include "trails/engines/gromacs/prepared_run.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "trails/core/error.h"
#include "trails/core/subprocess.h"
#include "trails/engines/external/segment_program.h"
#include "trails/engines/gromacs/mdp.h"
#include "trails/engines/input_digest.h"
#include "trails/structure/structure_file.h"
#include "trails/trajio/trr.h"

namespace trails::engines::gromacs {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out.flush()) throw core::InputError(path.string() + ": cannot write");
}

// Velocities grompp stores in the campaign's run input only so that the patch can find them
// (every walker's run input replaces them): distinct, small, deterministic.
std::vector<double> marker_velocities(std::size_t n) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = 1e-3 * static_cast<double>((i * 7919) % 1000 + 1);
  return v;
}

// Per-atom masses from `gmx dump -s`: each moltype's atoms (m= ...), expanded by molblock.
std::vector<double> masses_from_dump(const std::string& dump, const fs::path& tpr) {
  static const std::regex kMoltype(R"(^\s*moltype \((\d+)\):)");
  static const std::regex kBlockType(R"(^\s*moltype\s+=\s+(\d+))");
  static const std::regex kBlockCount(R"(^\s*#molecules\s+=\s+(\d+))");
  static const std::regex kAtom(R"(ptype=.*\bm=\s*([-+0-9.eE]+))");
  std::vector<std::vector<double>> type_masses;
  std::vector<std::pair<int, long>> blocks;
  int current = -1;
  std::istringstream in(dump);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, kMoltype)) {
      current = std::stoi(m[1]);
      if (static_cast<int>(type_masses.size()) <= current) type_masses.resize(current + 1);
    } else if (std::regex_search(line, m, kBlockType)) {
      blocks.emplace_back(std::stoi(m[1]), 0);
    } else if (std::regex_search(line, m, kBlockCount) && !blocks.empty()) {
      blocks.back().second = std::stol(m[1]);
    } else if (current >= 0 && std::regex_search(line, m, kAtom)) {
      type_masses[current].push_back(std::stod(m[1]));
    }
  }
  std::vector<double> masses;
  for (const auto& [type, count] : blocks) {
    if (type < 0 || type >= static_cast<int>(type_masses.size())) {
      throw core::InputError(tpr.string() + ": `gmx dump` names moltype " + std::to_string(type) +
                             " that it does not list");
    }
    for (long i = 0; i < count; ++i) {
      masses.insert(masses.end(), type_masses[type].begin(), type_masses[type].end());
    }
  }
  return masses;
}

core::ProcessResult run_gmx(const config::GromacsSpec& spec, std::vector<std::string> args,
                            const fs::path& cwd) {
  args.insert(args.begin(), spec.params.executable);
  core::ProcessOptions options;
  options.set_env = gmx_environment(spec);
  options.working_directory = cwd;
  options.interruptible = true;
  options.stderr_tail_bytes = 16384;
  options.timeout = external::time_limit(spec.timeout_s);
  try {
    return core::run_process(args, options);
  } catch (const core::InputError& e) {
    throw core::InputError(std::string(e.what()) +
                           "; install GROMACS (scripts/install-deps) or set "
                           "engine.gromacs_executable to the gmx program");
  }
}

void run_grompp(const config::GromacsSpec& spec, const fs::path& dir) {
  const std::vector<std::string> args = {"grompp",
                                         "-f",
                                         "grompp.mdp",
                                         "-c",
                                         spec.conf_file.string(),
                                         "-t",
                                         "start.trr",
                                         "-p",
                                         spec.top_file.string(),
                                         "-o",
                                         "topol.tpr",
                                         "-po",
                                         "mdout.mdp",
                                         "-maxwarn",
                                         std::to_string(spec.params.grompp_maxwarn)};
  const core::ProcessResult r = run_gmx(spec, args, dir);
  write_bytes(dir / "grompp.log", r.stdout_text + r.stderr_tail);
  if (!r.status.ok()) {
    throw core::ConfigError(
        "gmx grompp refused the GROMACS inputs (system.conf_file " + spec.conf_file.string() +
        ", system.top_file " + spec.top_file.string() + ", the MDP " +
        (spec.mdp_template ? "template " + spec.mdp_template->string() : "Trails builds") +
        "); grompp " + r.status.describe(external::time_limit(spec.timeout_s)) + " and says:\n" +
        core::indent_lines(r.stderr_tail));
  }
}

struct StartStructure {
  structure::StructureFile file;
  std::vector<double> box;
};

StartStructure read_start(const config::GromacsSpec& spec) {
  StartStructure s{structure::read_structure(spec.conf_file), std::vector<double>(9, 0.0)};
  if (s.file.boxes[0]) s.box.assign(s.file.boxes[0]->begin(), s.file.boxes[0]->end());
  return s;
}

void build(const config::GromacsSpec& spec, const std::string& mdp, const StartStructure& start,
           const fs::path& dir) {
  const std::vector<double>& x = start.file.frames[0];
  trajio::TrrFrame frame;
  frame.positions = x;
  frame.velocities = marker_velocities(x.size());
  structure::Box box{};
  std::copy(start.box.begin(), start.box.end(), box.begin());
  frame.box = box;
  trajio::write_trr(dir / "start.trr", static_cast<int>(x.size() / 3), {frame});
  write_bytes(dir / "grompp.mdp", mdp);
  run_grompp(spec, dir);
  const TprStart tpr_start{x, frame.velocities, box};
  const TprLayout layout = locate_tpr_fields(read_file_bytes(dir / "topol.tpr"), tpr_start,
                                             (dir / "topol.tpr").string());
  const core::ProcessResult dump = run_gmx(spec, {"dump", "-s", "topol.tpr"}, dir);
  const std::vector<double> masses = masses_from_dump(dump.stdout_text, dir / "topol.tpr");
  if (!dump.status.ok() || static_cast<int>(masses.size()) != layout.n_atoms) {
    throw core::InputError((dir / "topol.tpr").string() + ": `gmx dump` gave " +
                           std::to_string(masses.size()) + " masses for " +
                           std::to_string(layout.n_atoms) + " atoms");
  }
  structure::write_structure(dir / "topology.pdb", start.file.topology, x, start.file.boxes[0]);
  write_bytes(dir / "prepare.json",
              json{{"layout", layout.to_json()}, {"masses", masses}}.dump(1) + "\n");
}

}  // namespace

std::vector<std::pair<std::string, std::string>> gmx_environment(const config::GromacsSpec& spec) {
  if (!spec.include_dir) return {};
  const char* existing = std::getenv("GMXLIB");
  std::string value = spec.include_dir->string();
  if (existing != nullptr && *existing != '\0') value += std::string(":") + existing;
  return {{"GMXLIB", value}};
}

PreparedRun prepare_gromacs_run(const config::GromacsSpec& spec, const fs::path& run_dir) {
  const std::string mdp = with_trails_settings(render_mdp(spec));
  const StartStructure start = read_start(spec);
  PreparedRun p;
  p.digest = fnv1a_hex(mdp + "\n" + read_file_bytes(spec.conf_file) + "\n" +
                       read_file_bytes(spec.top_file) + "\n" + spec.params.executable + "\n" +
                       (spec.include_dir ? spec.include_dir->string() : "") + "\n" +
                       std::to_string(spec.params.grompp_maxwarn));
  p.run_dir = run_dir;
  p.dir = run_dir / "prepared" / ("gromacs-" + p.digest);
  if (!fs::exists(p.dir / "prepare.json")) {
    const fs::path tmp = p.dir.string() + ".tmp-" + std::to_string(::getpid());
    fs::remove_all(tmp);
    fs::create_directories(tmp);
    try {
      build(spec, mdp, start, tmp);
    } catch (...) {
      std::error_code ec;
      fs::remove_all(tmp, ec);
      throw;
    }
    std::error_code ec;
    fs::rename(tmp, p.dir, ec);  // another process may have won the race: same digest, same use
    if (ec) fs::remove_all(tmp, ec);
  }
  const json info = json::parse(read_file_bytes(p.dir / "prepare.json"));
  p.layout = TprLayout::from_json(info.at("layout"));
  p.masses = info.at("masses").get<std::vector<double>>();
  p.tpr = p.dir / "topol.tpr";
  p.topology_pdb = p.dir / "topology.pdb";
  p.positions = start.file.frames[0];
  p.box = start.box;
  return p;
}

}  // namespace trails::engines::gromacs
