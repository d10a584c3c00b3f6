// Preparation of an OpenMM system: digest the inputs, run share/trails/prepare_openmm.py once
// into a temporary directory, rename it into place, and read it back. A resume (same digest)
// only reads. Python is used here and nowhere else: MD runs on the C++ API.
#include "trails/engines/openmm/prepared_system.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "trails/core/error.h"
#include "trails/core/python.h"
#include "trails/core/signals.h"
#include "trails/core/source_tree.h"
#include "trails/core/subprocess.h"
#include "trails/engines/input_digest.h"

namespace trails::engines::openmm {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

json file_entry(const std::optional<fs::path>& p) {
  if (!p) return nullptr;
  return json{{"path", p->string()}, {"content", fnv1a_hex(read_file_bytes(*p))}};
}

// The files of a prepared directory that are read after preparation; prepare.json records a
// checksum of each one present, verified on every load (docs/reliability.md, "What is verified
// on read").
constexpr const char* kCheckedFiles[] = {"system.xml", "topology.pdb", "integrator.xml"};

std::string checksum_of(const fs::path& path) {
  return "fnv1a64:" + fnv1a_hex(read_file_bytes(path));
}

json checksums_of(const fs::path& dir) {
  json sums = json::object();
  for (const char* name : kCheckedFiles) {
    if (fs::exists(dir / name)) sums[name] = checksum_of(dir / name);
  }
  return sums;
}

// Each recorded checksum must match, and no checked file may have appeared since. A record
// without checksums (older run directories) is read unverified.
void verify_checksums(const fs::path& dir, const json& info) {
  const auto recorded = info.find("checksums");
  if (recorded == info.end()) return;
  if (!recorded->is_object()) {
    throw core::CorruptionError((dir / "prepare.json").string() +
                                ": \"checksums\" is not an object; start a new run directory");
  }
  const std::string remedy =
      "restore the file as it was prepared, or start a new run directory (a resume would mix two "
      "physical systems)";
  for (const char* name : kCheckedFiles) {
    const fs::path path = dir / name;
    const auto entry = recorded->find(name);
    const bool present = fs::exists(path);
    if (entry == recorded->end()) {
      if (!present) continue;
      throw core::CorruptionError(path.string() +
                                  ": was added after preparation (prepare.json records no "
                                  "checksum for it); remove it, or start a new run directory");
    }
    if (!present) {
      throw core::CorruptionError(path.string() + ": was removed after preparation; " + remedy);
    }
    const std::string now = checksum_of(path);
    if (!entry->is_string() || entry->get<std::string>() != now) {
      throw core::CorruptionError(fmt::format(
          "{}: was changed after preparation (checksum {} recorded in prepare.json, now {}); {}",
          path.string(), entry->is_string() ? entry->get<std::string>() : entry->dump(), now,
          remedy));
    }
  }
}

}  // namespace

fs::path preparation_script() {
  if (const char* s = std::getenv("TRAILS_PREPARE_SCRIPT"); s != nullptr && *s != '\0') return s;
  return core::source_dir() / "share" / "trails" / "prepare_openmm.py";
}

PreparedSystem load_prepared_system(const fs::path& dir) {
  const fs::path info_path = dir / "prepare.json";
  json info;
  try {
    info = json::parse(read_file_bytes(info_path));
  } catch (const json::exception& e) {
    throw core::InputError(info_path.string() + ": not a prepared-system record: " + e.what());
  }
  verify_checksums(dir, info);
  PreparedSystem p;
  p.dir = dir;
  p.system_xml = dir / "system.xml";
  if (!fs::exists(p.system_xml)) throw core::InputError(p.system_xml.string() + ": missing");
  if (fs::exists(dir / "topology.pdb")) p.topology_pdb = dir / "topology.pdb";
  if (fs::exists(dir / "integrator.xml")) p.integrator_xml = dir / "integrator.xml";
  try {
    p.digest = info.value("digest", std::string());
    p.n_atoms = info.at("n_atoms").get<int>();
    p.positions = info.at("positions").get<std::vector<double>>();
    if (!info.at("box").is_null()) p.box = info.at("box").get<std::vector<double>>();
    p.source = info.value("source", std::string());
    p.forcefield = info.value("forcefield", std::vector<std::string>{});
    p.openmm_version = info.value("openmm_version", std::string());
  } catch (const json::exception& e) {
    throw core::InputError(info_path.string() + ": " + e.what());
  }
  if (p.positions.size() != 3 * static_cast<std::size_t>(p.n_atoms) ||
      (!p.box.empty() && p.box.size() != 9)) {
    throw core::InputError(info_path.string() + ": positions or box do not match n_atoms");
  }
  return p;
}

std::string preparation_digest(const config::OpenMMSpec& spec) {
  const config::MolecularInputs& in = spec.inputs;
  const config::OpenMMEngineConfig& o = spec.params;
  json j;
  j["format"] = 1;
  j["script"] = fnv1a_hex(read_file_bytes(preparation_script()));
  j["pathgennie_system"] =
      fnv1a_hex(read_file_bytes(preparation_script().parent_path() / "pathgennie_system.py"));
  j["conf_file"] = file_entry(in.conf_file);
  j["top_file"] = file_entry(in.top_file);
  j["system_file"] = file_entry(in.system_file);
  j["forcefield"] = in.forcefield;
  j["include_dir"] = in.gromacs_include_dir ? in.gromacs_include_dir->string() : "";
  // make_system() modules may read these.
  j["temperature"] = o.temperature;
  j["dt"] = o.dt;
  j["pressure"] = o.pressure;
  return fnv1a_hex(j.dump());
}

PreparedSystem prepare_openmm_system(const config::OpenMMSpec& spec, const fs::path& run_dir) {
  const config::MolecularInputs& in = spec.inputs;
  if (!in.conf_file) {
    throw core::ConfigError(
        "system.conf_file: the OpenMM engine needs a structure file (.pdb, .gro, .inpcrd)");
  }
  const std::string digest = preparation_digest(spec);
  const fs::path root = run_dir / "prepared";
  const fs::path dir = root / digest;
  if (fs::exists(dir / "prepare.json")) return load_prepared_system(dir);

  const bool run_dir_existed = fs::exists(run_dir);  // bad input must leave nothing behind
  const bool root_existed = fs::exists(root);
  const fs::path tmp = root / fmt::format("{}.tmp-{}", digest, ::getpid());
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  const core::PythonInterpreter python = core::resolve_python(in.python);
  std::vector<std::string> argv = {python.program, preparation_script().string(), "--conf",
                                   in.conf_file->string()};
  if (in.top_file) argv.insert(argv.end(), {"--top", in.top_file->string()});
  if (in.system_file) {
    argv.insert(argv.end(), {"--system-file", in.system_file->string()});
  }
  for (const auto& ff : in.forcefield) argv.insert(argv.end(), {"--forcefield", ff});
  if (in.gromacs_include_dir) {
    argv.insert(argv.end(), {"--include-dir", in.gromacs_include_dir->string()});
  }
  const config::OpenMMEngineConfig& o = spec.params;
  argv.insert(argv.end(),
              {"--temperature", fmt::format("{}", o.temperature), "--dt", fmt::format("{}", o.dt),
               "--pressure", fmt::format("{}", o.pressure), "--out", tmp.string()});
  core::ProcessOptions options;
  options.stderr_tail_bytes = 64 << 10;
  options.interruptible = true;  // a stop signal ends the script; nothing is published
  python.apply(options);
  core::ProcessResult result;
  try {
    result = core::run_process(argv, options);
  } catch (const core::InputError& e) {
    fs::remove_all(tmp);
    if (!root_existed) fs::remove(root);
    if (!run_dir_existed) fs::remove_all(run_dir);
    throw core::InputError(std::string(e.what()) + " (OpenMM system preparation with " +
                           python.describe() + "; set engine.python or TRAILS_PYTHON)");
  } catch (const core::Interrupted&) {
    fs::remove_all(tmp);
    if (!root_existed) fs::remove(root);
    if (!run_dir_existed) fs::remove_all(run_dir);
    throw;
  }
  {  // what the script printed, kept next to the prepared system
    std::ofstream log(tmp / "prepare.log");
    log << result.stdout_text << result.stderr_tail;
  }
  // Its warnings (a system.py's platform fallback, docs/swarm.md) are said as the engine's own.
  if (result.status.ok()) {
    std::istringstream lines(result.stderr_tail);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("warning: ", 0) == 0) spdlog::warn("{}", line.substr(9));
    }
  }
  if (!result.status.ok()) {
    std::string tail = result.stderr_tail;
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
    fs::remove_all(tmp);
    if (!root_existed) fs::remove(root);
    if (!run_dir_existed) fs::remove_all(run_dir);
    if (result.status.exited_with(2)) {
      // The script's own message: "system.<key>: what is wrong".
      const auto last = tail.rfind('\n');
      throw core::ConfigError((last == std::string::npos ? tail : tail.substr(last + 1)) +
                              " (OpenMM system preparation)");
    }
    throw core::InputError(fmt::format("OpenMM system preparation ({} {}) failed: {}",
                                       python.describe(), preparation_script().string(),
                                       core::describe_failure(argv, result)));
  }
  // Record the digest and the files' checksums in the prepared record, then publish the directory
  // atomically.
  json info = json::parse(read_file_bytes(tmp / "prepare.json"));
  info["digest"] = digest;
  info["checksums"] = checksums_of(tmp);
  {
    std::ofstream out(tmp / "prepare.json");
    out << info.dump();
  }
  std::error_code ec;
  fs::rename(tmp, dir, ec);
  if (ec) {  // a concurrent preparation won the race: use its result
    fs::remove_all(tmp);
    if (!fs::exists(dir / "prepare.json")) {
      throw core::StoreError(dir.string() +
                             ": cannot publish the prepared system: " + ec.message());
    }
  }
  return load_prepared_system(dir);
}

}  // namespace trails::engines::openmm
