// The command engine's contract with a user's program (docs/engines.md, "The command engine";
// WESTPA's runseg.sh is the model): per segment a JSON task file and the same values as
// TRAILS_* environment variables, start arrays as float64 .npy (plus a PDB/GRO of the start for
// molecular systems), and the output paths the program writes: frames as .npy, .xtc or .dcd
// and the final state as float64 .npy. `trails integrate` reads the same file (read_task_file)
// and writes the same outputs (write_task_outputs), so one piece of code defines the format.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/engines/segment.h"
#include "trails/structure/topology.h"

namespace trails::engines::command {

inline constexpr int kTaskFileVersion = 1;

// What the task file says about the system, beside the task itself.
struct TaskSystem {
  int n_atoms = 1;
  int spatial_dim = 2;
  bool molecular = false;
  double dt = 0.0;
  std::string time_unit;    // "ps" or "reduced"
  std::string length_unit;  // "nm" or "reduced"
  double temperature = 300.0;
  double pressure = 1.0;
  bool npt = false;
  std::optional<int> device;                       // the slot's device, if bound
  const structure::Topology* topology = nullptr;   // molecular: writes start.pdb
  std::optional<std::filesystem::path> conf_file;  // molecular: system.conf_file
};

// Writes the start arrays, the start structure and task.json into `dir`; returns the task JSON.
nlohmann::json write_task_files(const SegmentTask& task, const TaskSystem& system,
                                const std::filesystem::path& dir);

// TRAILS_TASK_FILE, TRAILS_SEED, TRAILS_START_POSITIONS, TRAILS_FRAMES_NPY, … (empty for null).
std::vector<std::pair<std::string, std::string>> task_environment(
    const nlohmann::json& task, const std::filesystem::path& task_file);

// `trails integrate`: the task of a task file (start read from its .npy files), and its JSON.
// Throws core::InputError naming the file and key for anything this version did not write.
struct TaskRequest {
  SegmentTask task;
  nlohmann::json json;
};
TaskRequest read_task_file(const std::filesystem::path& file);

// Writes a result's frames (frames_npy), boxes and final state where `task_json` asks.
void write_task_outputs(const SegmentResult& result, const nlohmann::json& task_json);

}  // namespace trails::engines::command
