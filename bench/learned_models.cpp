// bench/learned_models: training time of each learned model (docs/cvs.md, "Learned models")
// through Trails ÷ the same training in PyTorch from Python (bench/learned_pytorch.py on
// Debian's python3-torch: same modules, seed, batches, epochs and thread count; its time
// covers model construction and the epochs, not Python's start or the data load). Also checks
// that the two loss curves agree (max relative difference). Beside them, when the project .venv
// holds Trails-MD's own model libraries (make bench-deps), the same training through them
// (bench/trailsmd_models.py: deeptime's TVAE and VAMPNet, mlcolvar's DeepTICA). Not a test:
// prints a table (docs/performance.md, "Learned models"). Usage:
//   bench_learned_models [FRAMES=20000] [FEATURES=30] [EPOCHS=5] [BATCH=0 (auto)] [REPS=2]
// Data: a 3-state chain (p = 0.02 per frame) in 100-frame walker segments, embedded by a fixed
// random linear map into FEATURES columns plus N(0, 0.1²) noise, lag 5 frames. Networks are
// Trails-MD's defaults (hidden [256, 128], decoder [128, 256], latent 2). Each figure is the
// best of REPS wall-clock runs.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "trails/core/rng.h"
#include "trails/learned/model.h"
#include "trails/learned/pytorch_replay.h"

namespace fs = std::filesystem;
using trails::learned::ModelOptions;
using trails::learned::TrainingData;
using trails::learned::TrainingRecord;

namespace {

TrainingData chain_data(int frames, int features) {
  constexpr int kSegment = 100;
  trails::core::Rng rng = trails::core::Rng::stream(1, "bench-learned");
  std::vector<double> embed(static_cast<std::size_t>(3 * features));
  for (double& e : embed) e = rng.uniform();
  TrainingData d;
  d.n_features = features;
  int state = 0;
  std::vector<std::int64_t> segments;
  for (int f = 0; f < frames; ++f) {
    if (f % kSegment == 0) segments.push_back(std::min(kSegment, frames - f));
    if (rng.uniform() < 0.02) state = (state + 1 + static_cast<int>(rng.below(2))) % 3;
    for (int j = 0; j < features; ++j)
      d.rows.push_back(embed[static_cast<std::size_t>(state * features + j)] + 0.1 * rng.normal());
  }
  d.pairs = trails::learned::lagged_pairs(segments, 5);
  return d;
}

nlohmann::json run_python(const std::string& python, const char* script, const fs::path& dir) {
  const std::string command = fmt::format("{} {}/bench/{} {} > {}/out.json", python,
                                          TRAILS_SOURCE_DIR, script, dir.string(), dir.string());
  if (std::system(command.c_str()) != 0) throw std::runtime_error("failed: " + command);
  std::ifstream in(dir / "out.json");
  return nlohmann::json::parse(in);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int frames = argc > 1 ? std::atoi(argv[1]) : 20000;
  const int features = argc > 2 ? std::atoi(argv[2]) : 30;
  const int epochs = argc > 3 ? std::atoi(argv[3]) : 5;
  const int batch = argc > 4 ? std::atoi(argv[4]) : 0;
  const int reps = argc > 5 ? std::atoi(argv[5]) : 2;
  const TrainingData data = chain_data(frames, features);
  const fs::path dir = fs::temp_directory_path() / fmt::format("trails-bench-learned-{}", getpid());
  fmt::print("# {} frames x {} features, {} pairs, {} epochs, batch {}, best of {}\n", frames,
             features, data.pairs.size(), epochs, batch > 0 ? std::to_string(batch) : "auto", reps);
  const std::string venv = std::string(TRAILS_SOURCE_DIR) + "/.venv/bin/python";
  const bool trailsmd = fs::exists(venv);
  if (!trailsmd) fmt::print("# no {}: the Trails-MD columns need make bench-deps\n", venv);
  fmt::print("{:<10} {:>7} {:>10} {:>10} {:>7} {:>12} {:>11} {:>8}\n", "model", "threads",
             "trails_s", "pytorch_s", "ratio", "max_loss_rel", "trailsmd_s", "ratio_md");
  for (const char* kind : {"tvae", "vampnet", "spib", "deep-tica"}) {
    for (int threads : {1, 2}) {
      ModelOptions o;
      o.kind = kind;
      o.latent_dim = 2;
      o.epochs = epochs;
      if (batch > 0) o.batch_size = batch;
      o.spib_refine_rounds = 0;  // one pass: the same epochs for every model
      o.threads = threads;
      o.seed = 3;
      double trails_s = 1e300, torch_s = 1e300, md_s = 1e300, max_rel = 0;
      std::string md_note;
      for (int r = 0; r < reps; ++r) {
        TrainingRecord record;
        const auto t0 = std::chrono::steady_clock::now();
        trails::learned::train(o, data, record);
        trails_s = std::min(trails_s, seconds_since(t0));
        trails::learned::write_pytorch_replay_inputs(o, data, dir);
        const auto out = run_python("/usr/bin/python3", "learned_pytorch.py", dir);
        torch_s = std::min(torch_s, out.at("seconds").get<double>());
        if (trailsmd) {
          const auto md = run_python(venv, "trailsmd_models.py", dir);
          if (md.contains("seconds"))
            md_s = std::min(md_s, md.at("seconds").get<double>());
          else
            md_note = md.at("unavailable").get<std::string>();
        }
        const auto loss = out.at("loss").get<std::vector<double>>();
        for (std::size_t e = 0; e < loss.size() && e < record.loss.size(); ++e)
          max_rel = std::max(max_rel,
                             std::abs(loss[e] - record.loss[e]) / std::max(1.0, std::abs(loss[e])));
      }
      const bool has_md = md_s < 1e300;
      fmt::print("{:<10} {:>7} {:>10.3f} {:>10.3f} {:>7.2f} {:>12.1e} {:>11} {:>8}{}\n", kind,
                 threads, trails_s, torch_s, trails_s / torch_s, max_rel,
                 has_md ? fmt::format("{:.3f}", md_s) : "-",
                 has_md ? fmt::format("{:.2f}", trails_s / md_s) : "-",
                 md_note.empty() ? "" : "  # " + md_note);
      std::fflush(stdout);
    }
  }
  fs::remove_all(dir);
  return 0;
}
