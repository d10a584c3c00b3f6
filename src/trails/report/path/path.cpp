#include "trails/report/path/path.h"

#include <cmath>
#include <map>
#include <memory>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "trails/analysis/lineage_path.h"
#include "trails/core/error.h"
#include "trails/core/output_target.h"
#include "trails/report/common/cv_axes.h"
#include "trails/report/common/frame_trajectory.h"
#include "trails/report/common/gnuplot.h"
#include "trails/report/common/run_frames.h"
#include "trails/report/path/path_plot.h"
#include "trails/store/run_store.h"

namespace trails::report {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

// Where one path goes: its metadata JSON and (molecular runs) its trajectory.
struct PathFiles {
  std::optional<core::OutputTarget> trajectory;
  core::OutputTarget metadata;
};

// Letters, digits, '.', '-' and '_' kept, anything else '_' (a pair name in a file name).
std::string safe_name(const std::string& name) {
  std::string out;
  for (const char c : name) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '-' || c == '_';
    out += keep ? c : '_';
  }
  return out;
}

// The targets of every path (and the picture and batch summary), all checked before anything is
// read; the pairs file is an input and may not be one of them.
std::vector<PathFiles> plan_outputs(const PathRequest& r, bool molecular,
                                    std::optional<core::OutputTarget>& summary,
                                    std::optional<core::OutputTarget>& picture) {
  std::vector<std::pair<std::string, fs::path>> named;
  std::vector<std::pair<std::optional<std::size_t>, std::size_t>> slots;  // (trajectory, json)
  auto add = [&](const std::string& option, const fs::path& p) {
    named.emplace_back(option, p);
    return named.size() - 1;
  };
  const auto parent = r.output_dir ? core::ParentDir::MayBeCreated : core::ParentDir::MustExist;
  if (r.output_dir) {
    const std::string ext = "." + r.format;
    if (molecular) trajectory_extension("--format", "path" + ext);
    for (std::size_t i = 0; i < r.pairs.size(); ++i) {
      const auto stem = r.pairs[i].name.empty()
                            ? fmt::format("path_{:04d}", i)
                            : fmt::format("{:04d}_{}", i, safe_name(r.pairs[i].name));
      const fs::path base = *r.output_dir / (stem + (molecular ? ext : ""));
      std::optional<std::size_t> traj;
      if (molecular) traj = add("--output-dir", base);
      slots.emplace_back(traj, add("--output-dir", base.string() + ".json"));
    }
  } else {
    if (r.output && !molecular) {
      throw core::UsageError(
          "-o " + r.output->string() + ": " + r.run_dir.string() +
          " is a built-in (analytic) run: its frames are CV-space points, not atoms, so there "
          "is no trajectory to write; the path is in the metadata JSON (--metadata FILE, "
          "default path.json); nothing was written");
    }
    if (r.output) trajectory_extension("-o", *r.output);
    std::optional<std::size_t> traj;
    if (r.output) traj = add("-o", *r.output);
    const fs::path meta = r.metadata
                              ? *r.metadata
                              : (r.output ? fs::path(r.output->string() + ".json") : "path.json");
    slots.emplace_back(traj, add("--metadata", meta));
  }
  std::optional<std::size_t> summary_slot, plot_slot;
  if (r.output_dir) summary_slot = add("--output-dir", *r.output_dir / "paths_summary.json");
  if (r.plot) plot_slot = add("--plot", *r.plot);
  const auto targets = core::check_outputs(named, parent);
  if (r.pairs_file) {
    std::error_code ec;
    for (const auto& t : targets) {
      if (fs::equivalent(t.path, *r.pairs_file, ec)) {
        throw core::UsageError(t.option + " " + t.given.string() +
                               " is the pairs file the paths are read from; give another "
                               "output; nothing was written");
      }
    }
  }
  if (plot_slot && targets[*plot_slot].path.extension() != ".png") {
    throw core::UsageError("--plot " + r.plot->string() +
                           ": the picture is a PNG; give a name ending in .png");
  }
  std::vector<PathFiles> out;
  for (const auto& [traj, meta] : slots) {
    out.push_back({traj ? std::optional(targets[*traj]) : std::nullopt, targets[meta]});
  }
  if (summary_slot) summary = targets[*summary_slot];
  if (plot_slot) picture = targets[*plot_slot];
  return out;
}

std::string cv_list(const store::RunMeta& meta, int d) {
  std::string names;
  for (int i = 0; i < d; ++i)
    names += (i ? ", " : "") + cv_axis_label(meta.config, meta.engine_system, i, d);
  return names;
}

// The committed frame nearest to `target`; UsageError naming the option on a dimension mismatch.
std::size_t nearest_frame(const RunFrames& frames, const store::RunMeta& meta,
                          const std::vector<double>& target, const std::string& option) {
  if (static_cast<int>(target.size()) != frames.dim()) {
    throw core::UsageError(fmt::format(
        "{}: {} value(s) given but the run's CV space has {} ({}); give one value per CV, "
        "separated by commas",
        option, target.size(), frames.dim(), cv_list(meta, frames.dim())));
  }
  return analysis::nearest_point(frames.cvs(), target);
}

double squared_distance(std::span<const double> a, std::span<const double> b) {
  double s = 0.0;
  for (std::size_t k = 0; k < b.size(); ++k) s += (a[k] - b[k]) * (a[k] - b[k]);
  return s;
}

// For the "no common ancestor" error: the frame nearest to `target` among those whose lineage
// ends at the same root as `end` (nullopt when that is `start`'s root too: no hint to give).
// Segments come in ledger order, parents first, so one pass gives every segment its root.
std::optional<std::size_t> nearest_in_tree(const RunFrames& frames, std::span<const double> target,
                                           const core::FrameKey& start, const core::FrameKey& end) {
  std::map<std::pair<std::int64_t, std::int64_t>, core::FrameKey> root_of;
  const auto root = [&](const core::FrameKey& k) {
    const auto it = root_of.find({k.iteration, k.walker});
    return it == root_of.end() ? k : it->second;
  };
  std::optional<std::size_t> best;
  double best_d = 0.0;
  for (std::size_t row = 0; row < frames.size(); ++row) {
    const auto& k = frames.keys()[row];
    if (k.frame == 0) {
      const auto parent = frames.parent_of(k);
      root_of[{k.iteration, k.walker}] = parent ? root(*parent) : k;
    }
  }
  const auto end_root = root(end);
  if (root(start) == end_root) return std::nullopt;
  for (std::size_t row = 0; row < frames.size(); ++row) {
    if (root(frames.keys()[row]) != end_root) continue;
    const double d = squared_distance(frames.cv(row), target);
    if (!best || d < best_d) {
      best = row;
      best_d = d;
    }
  }
  return best;
}

json path_metadata(const PathRequest& r, const PathEnds& ends, const analysis::LineagePath& p,
                   const RunFrames& frames, const store::RunMeta& meta, const PathFiles& files) {
  const auto unit = meta.engine_system.value("time_unit", std::string("reduced"));
  json list = json::array();
  for (const auto& k : p.frames) {
    const std::size_t row = *frames.row_of(k);
    const auto parent = frames.recorded_parent(k);
    const auto cv = frames.cv(row);
    list.push_back({{"key", k.to_string()},
                    {"parent", parent ? json(parent->to_string()) : json(nullptr)},
                    {"iteration", k.iteration},
                    {"walker", k.walker},
                    {"frame", k.frame},
                    {"time", frames.time(row)},
                    {"time_ps", unit == "ps" ? json(frames.time(row)) : json(nullptr)},
                    {"cvs", std::vector<double>(cv.begin(), cv.end())}});
  }
  const auto start_row = *frames.row_of(p.start);
  const auto end_row = *frames.row_of(p.end);
  return {{"run_dir", fs::absolute(r.run_dir).string()},
          {"name", ends.name},
          {"start", ends.start},
          {"end", ends.end},
          {"start_frame", p.start.to_string()},
          {"end_frame", p.end.to_string()},
          {"lca", p.lca.to_string()},
          {"start_distance", std::sqrt(squared_distance(frames.cv(start_row), ends.start))},
          {"end_distance", std::sqrt(squared_distance(frames.cv(end_row), ends.end))},
          {"n_frames", p.frames.size()},
          {"time_unit", unit},
          {"trajectory", files.trajectory ? json(files.trajectory->path.string()) : json(nullptr)},
          {"frames", std::move(list)}};
}

// Writes every file under its temporary name, then commits them all.
void stage_and_commit(const PathRequest& r, const store::RunStore& store,
                      const store::RunMeta& meta, const RunFrames& frames,
                      const std::vector<analysis::LineagePath>& paths,
                      const std::vector<PathFiles>& files,
                      const std::optional<core::OutputTarget>& summary_target,
                      const std::optional<core::OutputTarget>& plot_target) {
  std::vector<std::unique_ptr<core::PendingOutput>> staged;
  json summary = json::array();
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const auto& f = files[i];
    if (f.trajectory) {
      const auto first = *frames.row_of(paths[i].start);
      const double interval = frames.time(first) / static_cast<double>(paths[i].start.frame + 1);
      // One continuous sequence: the k-th frame gets step k + 1, time (k + 1) × interval.
      std::vector<FrameStamp> stamps;
      for (std::size_t k = 1; k <= paths[i].frames.size(); ++k) {
        stamps.push_back({static_cast<std::int64_t>(k), static_cast<double>(k) * interval});
      }
      staged.push_back(std::make_unique<core::PendingOutput>(*f.trajectory));
      write_frame_trajectory(store, r.run_dir, paths[i].frames, stamps, staged.back()->temp_path());
    }
    const auto meta_json = path_metadata(r, r.pairs[i], paths[i], frames, meta, f);
    staged.push_back(std::make_unique<core::PendingOutput>(f.metadata));
    staged.back()->write(meta_json.dump(2) + "\n");
    summary.push_back({{"name", r.pairs[i].name},
                       {"start", r.pairs[i].start},
                       {"end", r.pairs[i].end},
                       {"output", meta_json["trajectory"]},
                       {"metadata", f.metadata.path.string()},
                       {"frames", paths[i].frames.size()},
                       {"start_frame", paths[i].start.to_string()},
                       {"end_frame", paths[i].end.to_string()},
                       {"lca", paths[i].lca.to_string()}});
  }
  if (summary_target) {
    staged.push_back(std::make_unique<core::PendingOutput>(*summary_target));
    staged.back()->write(summary.dump(2) + "\n");
  }
  if (plot_target) {
    std::vector<PlottedPath> drawn;
    for (std::size_t i = 0; i < paths.size(); ++i) {
      PlottedPath d{r.pairs[i].name.empty() ? fmt::format("path {}", i) : r.pairs[i].name,
                    {},
                    *frames.row_of(paths[i].lca)};
      for (const auto& k : paths[i].frames) d.rows.push_back(*frames.row_of(k));
      drawn.push_back(std::move(d));
    }
    staged.push_back(std::make_unique<core::PendingOutput>(*plot_target));
    draw_path_plot(meta, frames, drawn, staged.back()->temp_path());
    check_picture(staged.back()->temp_path(), "the path picture");
  }
  for (auto& s : staged) s->commit();
}

}  // namespace

std::string find_paths(const PathRequest& r) {
  TRAILS_CHECK(!r.pairs.empty(), "find_paths needs at least one pair");
  // Whether the run has atoms decides which files are written, so the store's meta is read
  // first; its frames only after every output passed the checks.
  const auto store = store::RunStore::open(r.run_dir, store::RunStore::Mode::ReadOnly);
  const auto& meta = store.meta();
  const bool molecular = meta.engine_system.value("molecular", false);
  std::optional<core::OutputTarget> summary_target, plot_target;
  const auto files = plan_outputs(r, molecular, summary_target, plot_target);

  const RunFrames frames(store.load_iterations());
  if (frames.size() == 0) {
    throw core::InputError(r.run_dir.string() +
                           " has no committed frames yet; wait for the first iteration to "
                           "commit; nothing was written");
  }
  const auto parent_of = [&](const core::FrameKey& k) { return frames.parent_of(k); };
  std::vector<analysis::LineagePath> paths;
  std::string text;
  for (std::size_t i = 0; i < r.pairs.size(); ++i) {
    const auto& ends = r.pairs[i];
    const auto from = frames.keys()[nearest_frame(frames, meta, ends.start, ends.start_option)];
    const auto to = frames.keys()[nearest_frame(frames, meta, ends.end, ends.end_option)];
    try {
      paths.push_back(analysis::connect_lineage(from, to, parent_of));
    } catch (core::InputError& e) {
      if (const auto row = nearest_in_tree(frames, ends.start, from, to)) {
        const auto cv = frames.cv(*row);
        std::string at;
        for (const double v : cv) at += (at.empty() ? "" : ",") + fmt::format("{}", v);
        e.with_context(fmt::format("the frame nearest to {} that shares {}'s lineage is {} at {}",
                                   ends.start_option, to.to_string(),
                                   frames.keys()[*row].to_string(), at));
      }
      if (r.pairs.size() > 1) e.with_context(fmt::format("in pair {} ({})", i, ends.name));
      throw;
    } catch (core::Error& e) {
      if (r.pairs.size() > 1) e.with_context(fmt::format("in pair {} ({})", i, ends.name));
      throw;
    }
    const auto& p = paths.back();
    text += fmt::format("path {}{}: {} -> {} via lowest common ancestor {}, {} frames\n", i,
                        ends.name.empty() ? "" : " " + ends.name, p.start.to_string(),
                        p.end.to_string(), p.lca.to_string(), p.frames.size());
  }

  // Everything is staged first and committed together at the end; a batch directory this
  // command created is removed again when anything fails before the commit.
  bool created_dir = false;
  if (r.output_dir) {
    std::error_code ec;
    created_dir = fs::create_directories(*r.output_dir, ec);
    if (ec) throw core::StoreError("cannot create " + r.output_dir->string() + ": " + ec.message());
  }
  try {
    stage_and_commit(r, store, meta, frames, paths, files, summary_target, plot_target);
  } catch (...) {
    std::error_code ec;
    if (created_dir) fs::remove(*r.output_dir, ec);  // only when still empty
    throw;
  }
  for (const auto& f : files) {
    if (f.trajectory) text += "wrote " + f.trajectory->given.string() + "\n";
    text += "wrote " + f.metadata.given.string() + "\n";
  }
  if (summary_target) text += "wrote " + summary_target->given.string() + "\n";
  if (plot_target) text += "wrote " + plot_target->given.string() + "\n";
  return text;
}

}  // namespace trails::report
