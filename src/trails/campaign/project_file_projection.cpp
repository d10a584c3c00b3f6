#include "trails/campaign/project_file_projection.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "trails/core/error.h"
#include "trails/core/npy.h"
#include "trails/core/python.h"
#include "trails/core/source_tree.h"
#include "trails/core/subprocess.h"
#include "trails/features/python_worker.h"
#include "trails/trajio/trajectory.h"

namespace trails::campaign {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr const char* kKey = "system.project_file";

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

json optional_path(const std::optional<fs::path>& p) {
  return p ? json(fs::absolute(*p).string()) : json(nullptr);
}

// A private directory under $TMPDIR for the preflight and the probe, removed on scope exit.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    std::string templ = (fs::temp_directory_path() / "trails-project-file-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) {
      throw core::InputError("cannot create a scratch directory in " +
                             fs::temp_directory_path().string() +
                             " to try system.project_file; set TMPDIR to a writable directory");
    }
    path_ = templ;
  }
  ~TemporaryDirectory() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The one-shot preflight (`trails check`, run start): run_project_file.py on `request` with
// `dir` as its scratch. nullopt on success; otherwise what went wrong, in words (the script's
// report, with the traceback tail indented below it).
std::optional<std::string> run_check_script(const core::PythonInterpreter& python,
                                            const fs::path& dir, json request) {
  const fs::path request_path = dir / "request.json";
  const fs::path error_path = dir / "error.json";
  request["error"] = error_path.string();
  {
    std::ofstream out(request_path);
    out << request.dump();
    if (!out) throw core::StoreError(request_path.string() + ": cannot write");
  }
  const std::vector<std::string> argv = {python.program, project_file_script().string(),
                                         request_path.string()};
  core::ProcessOptions options;
  options.stderr_tail_bytes = 2000;
  python.apply(options);
  core::ProcessResult result;
  try {
    result = core::run_process(argv, options);
  } catch (const core::InputError& e) {
    return fmt::format("{} (the Python interpreter is {}; set engine.python or TRAILS_PYTHON)",
                       e.what(), python.describe());
  }
  if (result.status.ok()) {
    const std::string printed = result.stdout_text + result.stderr_tail;
    if (!printed.empty()) spdlog::debug("system.project_file output:\n{}", printed);
    return std::nullopt;
  }
  if (result.status.exited_with(3) && fs::exists(error_path)) {
    try {
      const json problem = json::parse(read_text(error_path));
      std::string text = problem.at("message").get<std::string>();
      const std::string tb = problem.value("traceback", std::string());
      if (!tb.empty()) text += "\n  Python traceback (last lines):\n" + core::indent_lines(tb);
      return text;
    } catch (const json::exception&) {
    }
  }
  return fmt::format("{} {}: {}", python.describe(), project_file_script().string(),
                     core::describe_failure(argv, result));
}

// The XTC precision for one walker's frames: the finest of 10^7 ... 10^3 at which the spread of
// coordinates along each axis stays within 2·10^7 grid steps. 10^7 (a 1e-7 nm grid, float32's
// own spacing near 1 nm) lets extract_cvs see the frames as simulated; OpenMM's reporter writes
// 10^3 (0.001 nm). The xdrfile readers inside mdtraj and MDAnalysis fail on larger integer
// ranges (mdtraj from about 5·10^7 on a small molecule). The choice depends only on the
// frames, so a resume writes the same files.
double xtc_precision_for(std::span<const double> frames) {
  double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const std::size_t axis = i % 3;
    if (i < 3 || frames[i] < lo[axis]) lo[axis] = frames[i];
    if (i < 3 || frames[i] > hi[axis]) hi[axis] = frames[i];
  }
  double spread = 0.0, largest = 0.0;
  for (int a = 0; a < 3; ++a) {
    spread = std::max(spread, hi[a] - lo[a]);
    largest = std::max({largest, std::abs(lo[a]), std::abs(hi[a])});
  }
  for (const double precision : {1e7, 1e6, 1e5, 1e4}) {
    if (spread * precision <= 2e7 && largest * precision < 1e9) return precision;
  }
  return 1e3;
}

class ProjectFileProjection final : public features::Projection {
 public:
  explicit ProjectFileProjection(const config::CampaignConfig& config)
      : module_(fs::absolute(*config.system.project_file)),
        // Trails-MD reads trajectories with system.trajectory_topology_file when it is set
        // (compat:trajectory-topology).
        top_file_(optional_path(config.system.trajectory_topology_file
                                    ? config.system.trajectory_topology_file
                                    : config.system.top_file)),
        conf_file_(optional_path(config.system.conf_file)),
        scratch_(config.outdir / "project_file.tmp"),
        // A learned space bins its own dimensions; the project file's CVs are then evaluation
        // only (Trails-MD's physical_cvs), with as many columns as extract_cvs returns at the
        // start-structure probe (0 until then).
        dimension_(config.learned_space() ? 0 : config.cv_dimension()),
        evaluation_only_(config.learned_space()),
        stride_(config.spawning.stride),
        dt_ps_(config.engine.md.dt),
        worker_(core::resolve_python(config.engine.python), "system.project_file") {}

  int dimension() const override { return dimension_; }
  // The module's CV_NAMES when it defines them (read at the start-structure probe), else
  // extract_cvs[i] (docs/cvs.md, "Naming the columns").
  std::vector<std::string> column_names() const override {
    std::lock_guard lock(mutex_);
    if (!names_.empty()) return names_;
    std::vector<std::string> names;
    for (int i = 0; i < dimension_; ++i) names.push_back(fmt::format("extract_cvs[{}]", i));
    return names;
  }
  std::vector<std::string> column_units() const override {
    std::lock_guard lock(mutex_);
    return units_;
  }

  void project(std::span<const double> frames, std::int64_t n_frames, std::span<const double> boxes,
               std::vector<double>& out) const override {
    const features::WalkerFrames all{0, n_frames};
    project_iteration(0, std::span<const features::WalkerFrames>(&all, 1), frames, n_frames, boxes,
                      out);
  }

  void project_iteration(std::int64_t iteration, std::span<const features::WalkerFrames> walkers,
                         std::span<const double> frames, std::int64_t n_frames,
                         std::span<const double> boxes, std::vector<double>& out) const override {
    std::lock_guard lock(mutex_);
    std::error_code ec;
    fs::remove_all(scratch_, ec);  // a killed run's leftovers
    fs::create_directories(scratch_);
    std::optional<std::string> problem;
    try {
      // A non-finite value stays in `out`: the campaign fails that walker alone
      // (CampaignDriver::fail_non_finite_cvs).
      problem =
          extract(scratch_, iteration, walkers, frames, n_frames, boxes, out, NonFinite::Keep);
    } catch (...) {
      fs::remove_all(scratch_, ec);
      throw;
    }
    fs::remove_all(scratch_, ec);
    if (problem) {
      throw core::EngineError(fmt::format(
          "iteration {}: {}: {}\n  iteration {} was not committed; fix the module, then continue "
          "the campaign with --resume",
          iteration, kKey, *problem, iteration));
    }
  }

  // The start-structure probe: one frame, one trajectory, in a private temporary directory.
  void probe(std::span<const double> positions, std::span<const double> box) const {
    std::lock_guard lock(mutex_);
    const TemporaryDirectory dir;
    std::vector<double> rows;
    const features::WalkerFrames one{0, 1};
    if (auto problem = extract(dir.path(), 0, std::span<const features::WalkerFrames>(&one, 1),
                               positions, 1, box, rows, NonFinite::Refuse)) {
      throw core::ConfigError(fmt::format(
          "{}: {}\n  (Trails called extract_cvs on a one-frame trajectory of the start structure "
          "to check the module before any MD; no MD was run)",
          kKey, *problem));
    }
  }

 private:
  // What extract does with a non-finite value: refuse it (the start-structure probe) or keep it.
  enum class NonFinite { Refuse, Keep };

  std::optional<std::string> extract(const fs::path& dir, std::int64_t iteration,
                                     std::span<const features::WalkerFrames> walkers,
                                     std::span<const double> frames, std::int64_t n_frames,
                                     std::span<const double> boxes, std::vector<double>& out,
                                     NonFinite non_finite) const {
    TRAILS_CHECK(n_frames > 0 && frames.size() % static_cast<std::size_t>(3 * n_frames) == 0,
                 "project_file projection: frames are not n_frames × n_atoms × 3");
    const int n_atoms = static_cast<int>(frames.size() / static_cast<std::size_t>(3 * n_frames));
    const std::size_t frame_size = 3 * static_cast<std::size_t>(n_atoms);
    json trajectories = json::array();
    std::size_t row = 0;
    for (const auto& w : walkers) {
      const fs::path path =
          fs::absolute(dir / fmt::format("iteration_{}_{}.xtc", iteration, w.walker));
      trajio::TrajectoryWriterOptions options;
      options.xtc_precision = xtc_precision_for(
          frames.subspan(row * frame_size, static_cast<std::size_t>(w.n_frames) * frame_size));
      auto writer = trajio::open_trajectory_writer(path, n_atoms, options);
      for (std::int64_t f = 0; f < w.n_frames; ++f, ++row) {
        trajio::TrajectoryFrame frame;
        frame.positions_nm.assign(
            frames.begin() + static_cast<std::ptrdiff_t>(row * frame_size),
            frames.begin() + static_cast<std::ptrdiff_t>((row + 1) * frame_size));
        if (!boxes.empty()) {
          structure::Box b;
          std::copy_n(boxes.begin() + static_cast<std::ptrdiff_t>(row * 9), 9, b.begin());
          frame.box = b;
        }
        frame.step = static_cast<std::int64_t>(stride_) *
                     (f + 1);  // no t = 0 frame (compat:no-initial-frame)
        frame.time_ps = static_cast<double>(frame.step) * dt_ps_;
        writer->write(frame);
      }
      writer->close();
      trajectories.push_back(path.string());
    }
    TRAILS_CHECK(row == static_cast<std::size_t>(n_frames), "walker spans do not cover the frames");
    const fs::path output = fs::absolute(dir / "cvs.npy");
    const fs::path columns = fs::absolute(dir / "columns.json");
    json request{{"mode", "run"},
                 {"module", module_.string()},
                 {"trajectories", trajectories},
                 {"top_file", top_file_},
                 {"conf_file", conf_file_},
                 {"rows", n_frames},
                 {"columns", dimension_ > 0 ? json(dimension_) : json(nullptr)},
                 {"evaluation_only", evaluation_only_},
                 {"keep_non_finite", non_finite == NonFinite::Keep},
                 {"output", output.string()},
                 {"columns_output", columns.string()}};
    if (auto problem = worker_.call(request)) return problem;
    read_column_labels(columns);
    const core::NpyArray a = core::read_npy(output);
    if (dimension_ == 0 && a.shape.size() == 2 && a.shape[0] == n_frames && a.shape[1] >= 1) {
      dimension_ = static_cast<int>(a.shape[1]);  // learned space: the probe fixes the columns
    }
    if (a.descr != "<f8" || a.shape != std::vector<std::int64_t>{n_frames, dimension_}) {
      return fmt::format("{}: the result file holds {} {} instead of float64 ({}, {})",
                         module_.string(), a.descr, a.shape_text, n_frames, dimension_);
    }
    const std::size_t start = out.size();
    out.resize(start + static_cast<std::size_t>(a.n_elements()));
    for (std::int64_t i = 0; i < a.n_elements(); ++i) {
      const double v = a.float_at(i);
      if (!std::isfinite(v) && non_finite == NonFinite::Refuse) {
        out.resize(start);
        return module_.string() + ": extract_cvs returned a non-finite value";
      }
      out[start + static_cast<std::size_t>(i)] = v;
    }
    return std::nullopt;
  }

  // CV_NAMES / CV_UNITS as the module's last call reported them (checked there against the
  // columns; absent attributes leave the defaults).
  void read_column_labels(const fs::path& file) const {
    std::ifstream in(file);
    if (!in) return;
    const json labels = json::parse(in);
    names_ = labels.value("cv_names", std::vector<std::string>{});
    units_ = labels.value("cv_units", std::vector<std::string>{});
  }

  fs::path module_;
  json top_file_;
  json conf_file_;
  fs::path scratch_;
  mutable std::vector<std::string> names_;  // CV_NAMES, else empty (under mutex_)
  mutable std::vector<std::string> units_;  // CV_UNITS, else empty (under mutex_)
  mutable int dimension_;  // set once, by the probe, for a learned space (under mutex_ after)
  bool evaluation_only_;
  int stride_;
  double dt_ps_;
  mutable features::PythonWorker worker_;  // one Python process for the campaign (under mutex_)
  mutable std::mutex mutex_;
};

}  // namespace

fs::path project_file_script() {
  if (const char* s = std::getenv("TRAILS_PROJECT_FILE_SCRIPT"); s != nullptr && *s != '\0') {
    return s;
  }
  return core::source_dir() / "share" / "trails" / "run_project_file.py";
}

void check_project_file(const config::CampaignConfig& config) {
  if (!config.system.project_file) return;
  const TemporaryDirectory dir;
  const json request{{"mode", "check"},
                     {"module", fs::absolute(*config.system.project_file).string()}};
  const core::PythonInterpreter python = core::resolve_python(config.engine.python);
  if (auto problem = run_check_script(python, dir.path(), request)) {
    throw core::ConfigError(std::string(kKey) + ": " + *problem);
  }
}

std::unique_ptr<features::Projection> make_project_file_projection(
    const config::CampaignConfig& config, std::span<const double> start_positions_nm,
    std::span<const double> start_box) {
  TRAILS_CHECK(config.system.project_file.has_value(), "no system.project_file");
  auto projection = std::make_unique<ProjectFileProjection>(config);
  projection->probe(start_positions_nm, start_box);
  return projection;
}

}  // namespace trails::campaign
