#include "trails/report/export/export_segments.h"

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "trails/core/error.h"

namespace trails::report {
namespace {

std::string committed_range(const std::vector<store::IterationRecord>& records) {
  if (records.empty()) return "no iteration is committed yet";
  return fmt::format("committed: {}..{}", records.front().iteration, records.back().iteration);
}

}  // namespace

std::vector<ExportSegment> select_segments(const std::vector<store::IterationRecord>& records,
                                           const FrameSelection& selection,
                                           const std::filesystem::path& run_dir) {
  // Every segment's clock, in ledger order: a parent always lies in an earlier iteration.
  std::vector<ExportSegment> all;
  std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> index;
  for (const auto& r : records) {
    std::size_t row = 0;
    for (const auto& w : r.walkers) {
      if (!w.ok) continue;
      ExportSegment s{&r, &w, row, 0.0, 0};
      row += static_cast<std::size_t>(w.n_frames);
      if (w.parent) {
        const auto at = index.find({w.parent->iteration, w.parent->walker});
        if (at == index.end() || w.parent->frame >= all[at->second].walker->n_frames) {
          throw core::InputError(
              fmt::format("{}: walker {} of iteration {} restarts from frame {}, which is not a "
                          "committed frame of the run; the ledger is inconsistent",
                          run_dir.string(), w.walker, r.iteration, w.parent->to_string()));
        }
        const auto& parent = all[at->second];
        s.start_time = parent.time(w.parent->frame);
        s.start_step = parent.step(w.parent->frame);
      }
      index.emplace(std::pair{r.iteration, w.walker}, all.size());
      all.push_back(s);
    }
  }

  if (selection.iteration && std::none_of(records.begin(), records.end(), [&](const auto& r) {
        return r.iteration == *selection.iteration;
      })) {
    throw core::UsageError(
        fmt::format("export --iteration {}: not a committed iteration of {} ({})",
                    *selection.iteration, run_dir.string(), committed_range(records)));
  }
  if (selection.walker) {
    // Walker indices are slots 0..n-1 of their iteration (failed walkers included).
    std::int64_t n_slots = 0;
    for (const auto& r : records) {
      if (selection.iteration && r.iteration != *selection.iteration) continue;
      for (const auto& w : r.walkers) n_slots = std::max(n_slots, w.walker + 1);
    }
    if (*selection.walker < 0 || *selection.walker >= n_slots) {
      const auto where = selection.iteration ? fmt::format("iteration {}", *selection.iteration)
                                             : std::string("the committed iterations");
      throw core::UsageError(
          n_slots == 0 ? fmt::format("export --walker {}: {} of {} hold no walker",
                                     *selection.walker, where, run_dir.string())
                       : fmt::format("export --walker {}: no such walker in {} of {} (walkers "
                                     "0..{})",
                                     *selection.walker, where, run_dir.string(), n_slots - 1));
    }
  }
  std::vector<ExportSegment> out;
  for (const auto& s : all) {
    if (selection.iteration && s.record->iteration != *selection.iteration) continue;
    if (selection.walker && s.walker->walker != *selection.walker) continue;
    out.push_back(s);
  }
  return out;
}

}  // namespace trails::report
