#include "trails/report/status/rebin_log.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "trails/binning/uniform_grid.h"
#include "trails/core/error.h"
#include "trails/core/output_target.h"
#include "trails/store/run_store.h"

namespace trails::report {
namespace fs = std::filesystem;
namespace {

// -o is refused anywhere inside the run directory, not only on the store's own files: the
// run's output.log is what Trails-MD's log tool overwrote (docs/analysis.md, "trails log").
core::OutputTarget checked_output(const fs::path& given, const fs::path& run_dir) {
  auto target = core::check_output("-o", given);
  std::error_code ec;
  const fs::path run = fs::weakly_canonical(fs::absolute(run_dir), ec);
  const auto rel = target.path.lexically_relative(run);
  if (!ec && !rel.empty() && *rel.begin() != "..") {
    throw core::UsageError("-o " + given.string() + ": is inside the run directory " +
                           run.string() +
                           "; trails log never writes into a run (its output.log is the "
                           "campaign's own log). Give a file outside it; nothing was written");
  }
  return target;
}

std::vector<double> per_axis(const std::vector<double>& v, std::size_t d, const char* option) {
  if (v.size() == d) return v;
  throw core::UsageError(
      fmt::format("{}: {} value(s) given but the run has {} CVs; give one per "
                  "CV",
                  option, v.size(), d));
}

}  // namespace

RebinTable rebin_log(const RebinRequest& r) {
  std::optional<core::OutputTarget> target;
  if (r.output) target = checked_output(*r.output, r.run_dir);
  const auto store = store::RunStore::open(r.run_dir, store::RunStore::Mode::ReadOnly);
  const auto records = store.load_iterations();
  if (records.empty()) {
    throw core::InputError(r.run_dir.string() +
                           " has no committed iteration yet; nothing to re-bin");
  }
  const auto d = static_cast<std::size_t>(records.front().cv_dim);
  const auto& config = store.meta().config;
  RebinTable t;

  auto run_bins = config.value("n_bins", std::vector<int>{});
  if (r.n_bins.empty()) {
    if (run_bins.size() != d) {
      throw core::UsageError(
          fmt::format("--n-bins: the run's n_bins has {} entries for {} CVs; give --n-bins",
                      run_bins.size(), d));
    }
    t.n_bins = run_bins;
  } else {
    t.n_bins = r.n_bins.size() == 1 ? std::vector<int>(d, r.n_bins.front()) : r.n_bins;
    if (t.n_bins.size() != d) {
      throw core::UsageError(fmt::format(
          "--n-bins: {} value(s) given but the run has {} CVs; give one per CV (or one for all)",
          r.n_bins.size(), d));
    }
  }

  // Default edges: the run's grid (fixed space, one per CV), else the data's range.
  const auto run_lo = config.value("min_values", std::vector<double>{});
  const auto run_hi = config.value("max_values", std::vector<double>{});
  const bool run_grid = config.value("space_mode", std::string("fixed")) == "fixed" &&
                        run_lo.size() == d && run_hi.size() == d;
  std::vector<double> data_lo(d, std::numeric_limits<double>::infinity());
  std::vector<double> data_hi(d, -std::numeric_limits<double>::infinity());
  for (const auto& rec : records) {
    for (std::size_t i = 0; i < rec.cvs.size(); ++i) {
      data_lo[i % d] = std::min(data_lo[i % d], rec.cvs[i]);
      data_hi[i % d] = std::max(data_hi[i % d], rec.cvs[i]);
    }
  }
  for (std::size_t k = 0; k < d; ++k) {
    if (data_lo[k] == data_hi[k]) {  // one value: a unit-wide bin range around it
      data_lo[k] -= 0.5;
      data_hi[k] += 0.5;
    }
  }
  const auto source = [&](bool given) { return given ? "options" : run_grid ? "run" : "data"; };
  t.grid_source = source(!r.min_values.empty()) == std::string(source(!r.max_values.empty()))
                      ? source(!r.min_values.empty())
                      : fmt::format("min:{},max:{}", source(!r.min_values.empty()),
                                    source(!r.max_values.empty()));
  t.min_values = !r.min_values.empty() ? per_axis(r.min_values, d, "--min-values")
                 : run_grid            ? run_lo
                                       : data_lo;
  t.max_values = !r.max_values.empty() ? per_axis(r.max_values, d, "--max-values")
                 : run_grid            ? run_hi
                                       : data_hi;
  for (std::size_t k = 0; k < d; ++k) {
    if (!(t.min_values[k] < t.max_values[k])) {
      throw core::UsageError(fmt::format(
          "--min-values/--max-values: axis {} runs from {} to {}; the minimum must be below the "
          "maximum",
          k, t.min_values[k], t.max_values[k]));
    }
  }
  const binning::UniformGrid grid(t.n_bins, t.min_values, t.max_values);

  t.text = "# Trails re-binned coverage log (trails log)\n# source=rebin\n";
  t.text += fmt::format("# run_dir={}\n", fs::absolute(r.run_dir).string());
  t.text += fmt::format("# n_bins={}\n", nlohmann::json(t.n_bins).dump());
  t.text += fmt::format("# min_values={}\n", nlohmann::json(t.min_values).dump());
  t.text += fmt::format("# max_values={}\n", nlohmann::json(t.max_values).dump());
  t.text += fmt::format("# grid_from={}\n", t.grid_source);
  t.text +=
      "iteration\tframes\tcumulative_frames\tnew_bins\toccupied_bins\ttotal_bins\t"
      "occupied_fraction\n";
  std::unordered_set<std::int64_t> occupied;
  std::int64_t cumulative = 0;
  for (const auto& rec : records) {
    const auto before = static_cast<std::int64_t>(occupied.size());
    for (std::int64_t f = 0; f < rec.n_frames(); ++f) {
      occupied.insert(grid.bin_of(
          std::span<const double>(rec.cvs).subspan(static_cast<std::size_t>(f) * d, d)));
    }
    cumulative += rec.n_frames();
    const auto now = static_cast<std::int64_t>(occupied.size());
    t.text += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{:.8f}\n", rec.iteration, rec.n_frames(),
                          cumulative, now - before, now, grid.total_bins(),
                          binning::occupied_fraction(now, grid.total_bins()));
  }
  if (target) core::write_output(*target, t.text);
  return t;
}

}  // namespace trails::report
