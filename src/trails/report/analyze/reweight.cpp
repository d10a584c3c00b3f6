// `trails reweight` (reweight.h): segments from the committed history, RiteWeight, and the
// weights file beside the run; its reader checks that a file belongs to the run it is used on.
#include "trails/report/analyze/reweight.h"
#include "trails/report/common/run_kind.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "trails/core/error.h"
#include "trails/core/output_target.h"

namespace trails::report {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr std::string_view kHeaderPrefix = "# trails reweight ";
constexpr std::string_view kColumns = "iteration,walker,frame,weight";
constexpr std::size_t kDriftPoints = 100;  // the drift trace in the header, thinned evenly

json run_identity(const store::RunMeta& meta) {
  return {{"created_at", meta.created_at}, {"config_digest", meta.config_digest}};
}

void validate(const ReweightRequest& r) {
  const auto& o = r.options;
  if (o.n_clusters < 1)
    throw core::UsageError(fmt::format("--clusters {} must be >= 1", o.n_clusters));
  if (o.n_iterations < 1)
    throw core::UsageError(fmt::format("--iterations {} must be >= 1", o.n_iterations));
  if (o.average_last < 1)
    throw core::UsageError(fmt::format("--average-last {} must be >= 1", o.average_last));
  if (!(std::isfinite(o.learning_rate) && o.learning_rate > 0))
    throw core::UsageError(fmt::format("--learning-rate {} must be positive", o.learning_rate));
}

// The output, refused inside the run directory: the run's files are the store's alone.
core::OutputTarget weights_target(const ReweightRequest& r, const fs::path& out) {
  auto target = core::check_output("-o", out);
  const fs::path run = fs::weakly_canonical(r.run_dir);
  const auto rel = target.path.lexically_relative(run);
  if (!rel.empty() && *rel.begin() != "..") {
    throw core::UsageError(fmt::format(
        "-o {}: the weights go beside the run, not into its directory {} (default {}); nothing "
        "was written",
        out.string(), r.run_dir.string(), default_weights_path(r.run_dir).string()));
  }
  return target;
}

std::string drift_json_trace(const std::vector<double>& drift, std::size_t& every) {
  every = std::max<std::size_t>(1, (drift.size() + kDriftPoints - 1) / kDriftPoints);
  json trace = json::array();
  for (std::size_t i = 0; i < drift.size(); i += every) trace.push_back(drift[i]);
  return trace.dump();
}

}  // namespace

CommittedFrames load_run_frames(const store::RunStore& store, const fs::path& run_dir,
                                std::optional<std::int64_t> up_to) {
  CommittedFrames out;
  for (const auto& rec : store.load_iterations()) {
    if (up_to && rec.iteration > *up_to) break;
    out.last_iteration = rec.iteration;
    if (rec.n_frames() == 0) continue;
    if (out.d == 0) out.d = rec.cv_dim;
    if (rec.cv_dim != out.d) {
      throw core::InputError(
          fmt::format("{}: iteration {} has {} CVs, earlier iterations {}; one CV space is needed",
                      run_dir.string(), rec.iteration, rec.cv_dim, out.d));
    }
    out.points.insert(out.points.end(), rec.cvs.begin(), rec.cvs.end());
    for (const auto& w : rec.walkers) {
      for (std::int64_t f = 0; f < w.n_frames; ++f) {
        out.keys.push_back({rec.iteration, w.walker, f});
        out.walker_weights.push_back(w.weight);
      }
    }
  }
  if (out.last_iteration < 0) {
    throw core::InputError(run_dir.string() + " has no committed iteration yet");
  }
  if (out.keys.size() * static_cast<std::size_t>(std::max(out.d, 1)) != out.points.size()) {
    throw core::CorruptionError(
        fmt::format("{}: the walkers' frame counts do not match the CVs", run_dir.string()));
  }
  return out;
}

fs::path default_weights_path(const fs::path& run_dir) {
  fs::path p = run_dir.lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  if (p.empty() || p == "." || p == "..") p = fs::weakly_canonical(run_dir);
  return p.string() + ".weights.csv";
}

ReweightResult reweight_run(const ReweightRequest& request) {
  validate(request);
  if (!fs::is_directory(request.run_dir)) {
    throw core::InputError("run directory " + request.run_dir.string() + " does not exist");
  }
  const fs::path out = request.out.value_or(default_weights_path(request.run_dir));
  const auto target = weights_target(request, out);
  const auto run = open_campaign_run(request.run_dir, "trails reweight");
  const auto& store = run.store;
  const CommittedFrames frames = load_run_frames(store, request.run_dir);
  std::vector<std::int64_t> starts, ends;
  for (std::size_t i = 0; i + 1 < frames.size(); ++i) {
    const auto& a = frames.keys[i];
    const auto& b = frames.keys[i + 1];
    if (a.iteration == b.iteration && a.walker == b.walker) {
      starts.push_back(static_cast<std::int64_t>(i));
      ends.push_back(static_cast<std::int64_t>(i + 1));
    }
  }
  if (starts.empty()) {
    throw core::InputError(fmt::format(
        "{}: no walker has two frames, so there is no segment to reweight (record more frames "
        "per walker: spawning.step / spawning.stride >= 2); nothing was written",
        request.run_dir.string()));
  }
  const auto view =
      analysis::points_view(frames.points, static_cast<Eigen::Index>(frames.size()), frames.d);
  const auto rw = analysis::riteweight(view, starts, ends, request.options);
  std::vector<double> weight(frames.size(), 0.0);
  for (std::size_t s = 0; s < starts.size(); ++s) {
    weight[static_cast<std::size_t>(starts[s])] += 0.5 * rw.weights[s];
    weight[static_cast<std::size_t>(ends[s])] += 0.5 * rw.weights[s];
  }
  const auto& o = request.options;
  std::size_t every = 1;
  const std::string trace = drift_json_trace(rw.drift, every);
  const json header = {
      {"format", 1},
      {"run", run_identity(store.meta())},
      {"run_dir", fs::weakly_canonical(request.run_dir).string()},
      {"iterations", {0, frames.last_iteration}},
      {"frames", frames.size()},
      {"segments", starts.size()},
      {"segments_from", "frame f -> f+1 within each walker's trajectory"},
      {"frame_weight", "half the leaving segment's weight + half the entering one's"},
      {"n_clusters", o.n_clusters},
      {"n_clusters_used", rw.n_clusters},
      {"n_iterations", o.n_iterations},
      {"learning_rate", o.learning_rate},
      {"average_last", o.average_last},
      {"seed", o.seed},
      {"converged", rw.converged},
      {"drift_first", rw.drift.front()},
      {"drift_last", rw.drift.back()},
      {"drift_every", every},
      {"drift", json::parse(trace)}};
  std::string text =
      std::string(kHeaderPrefix) + header.dump() + "\n" + std::string(kColumns) + "\n";
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const auto& k = frames.keys[i];
    text += fmt::format("{},{},{},{:.17g}\n", k.iteration, k.walker, k.frame, weight[i]);
  }
  core::write_output(target, text);
  return {target.given, frames.size(),    starts.size(),   rw.n_clusters,
          rw.converged, rw.drift.front(), rw.drift.back(), frames.last_iteration};
}

WeightsHeader read_weights_header(const fs::path& file, const store::RunMeta& meta) {
  std::ifstream in(file);
  if (!in) throw core::InputError("--weights " + file.string() + ": cannot open the file");
  std::string line;
  std::getline(in, line);
  if (!line.starts_with(kHeaderPrefix)) {
    throw core::InputError("--weights " + file.string() +
                           ": not a `trails reweight` file (its first line must start with '" +
                           std::string(kHeaderPrefix) + "')");
  }
  WeightsHeader h;
  try {
    h.json = json::parse(line.substr(kHeaderPrefix.size()));
    h.last_iteration = h.json.at("iterations").at(1).get<std::int64_t>();
    if (h.json.at("run") != run_identity(meta)) {
      throw core::InputError(fmt::format(
          "--weights {}: the weights were computed for another run (created {}, config digest "
          "{}); this run was created {} (digest {}); run `trails reweight` on this run",
          file.string(), h.json["run"].value("created_at", "?"),
          h.json["run"].value("config_digest", "?"), meta.created_at, meta.config_digest));
    }
  } catch (const json::exception& e) {
    throw core::InputError("--weights " + file.string() + ": bad header: " + e.what());
  }
  return h;
}

std::vector<double> read_frame_weights(const fs::path& file, const CommittedFrames& frames) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);  // header, checked by read_weights_header
  std::getline(in, line);
  if (line != kColumns) {
    throw core::InputError("--weights " + file.string() + ": line 2 must be '" +
                           std::string(kColumns) + "'");
  }
  std::vector<double> w;
  w.reserve(frames.size());
  std::size_t row = 0;
  const auto bad = [&](const std::string& what) {
    return core::InputError(fmt::format("--weights {}: line {}: {}; run `trails reweight` again",
                                        file.string(), row + 3, what));
  };
  while (std::getline(in, line)) {
    if (row >= frames.size()) throw bad("more frames than the run has in these iterations");
    const auto& k = frames.keys[row];
    const std::string key = fmt::format("{},{},{},", k.iteration, k.walker, k.frame);
    if (!line.starts_with(key))
      throw bad("expected frame " + k.to_string() + ", got '" + line + "'");
    double v = 0.0;
    const char* b = line.data() + key.size();
    const char* e = line.data() + line.size();
    const auto r = std::from_chars(b, e, v);
    if (r.ec != std::errc() || r.ptr != e || !std::isfinite(v) || v < 0) {
      throw bad("the weight is not a finite number >= 0");
    }
    w.push_back(v);
    ++row;
  }
  if (row != frames.size()) {
    throw core::InputError(fmt::format(
        "--weights {}: {} frames, but the run has {} in iterations 0..{}; run `trails reweight` "
        "again",
        file.string(), row, frames.size(), frames.last_iteration));
  }
  return w;
}

}  // namespace trails::report
