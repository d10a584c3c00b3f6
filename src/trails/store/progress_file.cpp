#include "trails/store/progress_file.h"

#include <fstream>
#include <sstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "trails/store/schema.h"

namespace trails::store {
namespace {

constexpr const char* kFormat = "trails-progress";
constexpr int kVersion = 1;

}  // namespace

std::filesystem::path progress_path(const std::filesystem::path& run_dir) {
  return run_dir / "progress.json";
}

bool write_progress(const std::filesystem::path& run_dir, const WalkerProgress& p) {
  nlohmann::json j = {{"format", kFormat},
                      {"version", kVersion},
                      {"iteration", p.iteration},
                      {"walkers", p.walkers},
                      {"done", p.done},
                      {"failed", p.failed},
                      {"running", p.running},
                      {"queued", p.queued},
                      {"elapsed_s", p.elapsed_s},
                      {"eta_s", p.eta_s ? nlohmann::json(*p.eta_s) : nlohmann::json()},
                      {"updated_at", detail::utc_now_iso8601()}};
  if (p.target_iterations) j["target_iterations"] = *p.target_iterations;
  // Temp + rename, without fsync: a reader never sees a half-written file, and a crash may at
  // worst leave an older one, which readers ignore (an fsync per update cost ~10 ms).
  const auto path = progress_path(run_dir);
  const auto tmp = std::filesystem::path(path.string() + ".tmp");
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << j.dump() << "\n";
    if (!out.flush()) return false;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  return !ec;
}

std::optional<WalkerProgress> read_progress(const std::filesystem::path& run_dir) {
  std::ifstream in(progress_path(run_dir));
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  const auto j = nlohmann::json::parse(text.str(), nullptr, false);
  if (!j.is_object() || j.value("format", "") != kFormat || j.value("version", 0) != kVersion) {
    return std::nullopt;
  }
  try {
    WalkerProgress p;
    p.iteration = j.at("iteration").get<std::int64_t>();
    p.walkers = j.at("walkers").get<int>();
    p.done = j.at("done").get<int>();
    p.failed = j.at("failed").get<int>();
    p.running = j.at("running").get<int>();
    p.queued = j.at("queued").get<int>();
    p.elapsed_s = j.at("elapsed_s").get<double>();
    if (j.at("eta_s").is_number()) p.eta_s = j.at("eta_s").get<double>();
    p.updated_at = j.at("updated_at").get<std::string>();
    if (j.contains("target_iterations")) {
      p.target_iterations = j.at("target_iterations").get<std::int64_t>();
    }
    return p;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

void remove_progress(const std::filesystem::path& run_dir) {
  std::error_code ec;
  std::filesystem::remove(progress_path(run_dir), ec);
}

std::optional<double> iteration_eta(double elapsed_s, int done, int walkers) {
  if (done <= 0) return std::nullopt;
  return elapsed_s / done * (walkers - done);
}

}  // namespace trails::store
