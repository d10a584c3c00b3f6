#include "trails/swarm/python_functions.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "trails/core/error.h"

namespace trails::swarm {
namespace {

using json = nlohmann::json;

// Frames (nm) as PathGennie hands them to its functions: per frame (n_atoms, 3) in Å.
json frames_in_angstrom(std::span<const double> frames, std::int64_t n_frames) {
  json out = json::array();
  if (n_frames == 0) return out;
  const std::size_t per_frame = frames.size() / static_cast<std::size_t>(n_frames);
  for (std::int64_t f = 0; f < n_frames; ++f) {
    json atoms = json::array();
    const auto first = static_cast<std::size_t>(f) * per_frame;
    for (std::size_t i = 0; i + 2 < per_frame; i += 3) {
      atoms.push_back(
          {frames[first + i] * 10.0, frames[first + i + 1] * 10.0, frames[first + i + 2] * 10.0});
    }
    out.push_back(std::move(atoms));
  }
  return out;
}

bool all_finite(std::span<const double> v) {
  for (double x : v) {
    if (!std::isfinite(x)) return false;
  }
  return true;
}

class PythonProjection final : public features::Projection {
 public:
  explicit PythonProjection(std::shared_ptr<PythonFunctions> functions)
      : functions_(std::move(functions)) {}
  int dimension() const override { return functions_->dimension(); }
  std::vector<std::string> column_names() const override {
    std::vector<std::string> names;
    for (int i = 0; i < dimension(); ++i) names.push_back(fmt::format("cv{}", i));
    return names;
  }
  void project(std::span<const double> frames, std::int64_t n_frames,
               std::span<const double> /*boxes: the function sees coordinates only*/,
               std::vector<double>& out) const override {
    functions_->project(frames, n_frames, out);
  }
  std::vector<double> periods() const override { return functions_->periods(); }

 private:
  std::shared_ptr<PythonFunctions> functions_;
};

}  // namespace

PythonFunctions::PythonFunctions(const config::SwarmConfig& config)
    : o_(config.swarm),
      worker_(core::resolve_python(config.md.engine.python),
              config.swarm.projection ? "projection" : "convergence") {}

std::optional<json> PythonFunctions::call(const config::PythonFunction& f, const char* kind,
                                          std::span<const double> frames, std::int64_t n_frames,
                                          std::string& problem) {
  const json request{{"mode", "call"},         {"module", f.module.string()},
                     {"function", f.function}, {"kwargs", f.kwargs},
                     {"kind", kind},           {"frames", frames_in_angstrom(frames, n_frames)}};
  json reply;
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto p = worker_.call(request, &reply)) {
    problem = *p;
    return std::nullopt;
  }
  return reply.at("values");
}

void PythonFunctions::check_imports() {
  for (const auto* f : {&o_.projection, &o_.convergence_function}) {
    if (!*f) continue;
    std::string problem;
    if (!call(**f, (*f)->block.c_str(), {}, 0, problem)) {
      throw core::ConfigError(fmt::format("{}: {}", (*f)->location, problem));
    }
  }
}

void PythonFunctions::check_on(std::span<const double> start_nm) {
  n_atoms_ = static_cast<int>(start_nm.size() / 3);
  std::string problem;
  if (o_.projection) {
    const auto values = call(*o_.projection, "projection", start_nm, 1, problem);
    if (!values) throw core::ConfigError(fmt::format("{}: {}", o_.projection->location, problem));
    const json& row = values->at(0);
    dimension_ = static_cast<int>(row.size());
    for (const auto& v : row) {
      if (v.is_null()) {
        throw core::ConfigError(
            fmt::format("{}: {} returned a non-finite CV on the start structure ({})",
                        o_.projection->location, o_.projection->function, row.dump()));
      }
    }
    if (!o_.projection_periods.empty() &&
        static_cast<int>(o_.projection_periods.size()) != dimension_) {
      throw core::ConfigError(fmt::format(
          "{}: projection.periodic has {} entries but {} returns {} CVs; give one per CV",
          o_.projection->location, o_.projection_periods.size(), o_.projection->function,
          dimension_));
    }
  }
  if (o_.convergence_function &&
      !call(*o_.convergence_function, "convergence", start_nm, 1, problem)) {
    throw core::ConfigError(fmt::format("{}: {}", o_.convergence_function->location, problem));
  }
}

std::unique_ptr<features::Projection> PythonFunctions::projection(
    std::shared_ptr<PythonFunctions> self) {
  return std::make_unique<PythonProjection>(std::move(self));
}

std::vector<double> PythonFunctions::periods() const {
  if (!o_.projection_periods.empty()) return o_.projection_periods;
  return std::vector<double>(static_cast<std::size_t>(dimension_), 0.0);
}

void PythonFunctions::project(std::span<const double> frames, std::int64_t n_frames,
                              std::vector<double>& out) {
  const std::size_t per_frame = static_cast<std::size_t>(n_atoms_) * 3;
  TRAILS_CHECK(frames.size() == per_frame * static_cast<std::size_t>(n_frames),
               "projection: frames of a different atom count than the start");
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::int64_t f = 0; f < n_frames; ++f) {
    const auto frame = frames.subspan(static_cast<std::size_t>(f) * per_frame, per_frame);
    if (!all_finite(frame)) {
      out.insert(out.end(), static_cast<std::size_t>(dimension_), nan);
      continue;
    }
    std::string problem;
    const auto values = call(*o_.projection, "projection", frame, 1, problem);
    if (!values) throw core::EngineError(fmt::format("{}: {}", o_.projection->location, problem));
    const json& row = values->at(0);
    if (static_cast<int>(row.size()) != dimension_) {
      throw core::EngineError(fmt::format("{}: {} returned {} CVs, {} on the start structure",
                                          o_.projection->location, o_.projection->function,
                                          row.size(), dimension_));
    }
    for (const auto& v : row) out.push_back(v.is_null() ? nan : v.get<double>());
  }
}

bool PythonFunctions::converged(std::span<const double> positions_nm) {
  if (!all_finite(positions_nm)) return false;
  std::string problem;
  const auto values = call(*o_.convergence_function, "convergence", positions_nm, 1, problem);
  if (!values) {
    throw core::EngineError(fmt::format("{}: {}", o_.convergence_function->location, problem));
  }
  return values->at(0).get<bool>();
}

}  // namespace trails::swarm
