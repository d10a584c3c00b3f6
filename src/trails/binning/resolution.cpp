// ResolutionController: compat:resolution-ladder step by step (convergence counter first, then the
// resolution check). Grid bumps never shrink an axis that already exceeds max_bins (Trails-MD
// would cut it down to max); otherwise the arithmetic is Python's, double for double.
#include "trails/binning/resolution.h"

#include <algorithm>
#include <string>

#include "trails/core/error.h"

namespace trails::binning {

ResolutionController::ResolutionController(std::vector<int> n_bins, int max_bins,
                                           int check_patience, int convergence_patience)
    : ResolutionController(std::move(n_bins), max_bins, check_patience, convergence_patience,
                           std::nullopt) {}

ResolutionController::ResolutionController(std::vector<int> n_bins, int max_bins,
                                           int check_patience, int convergence_patience,
                                           std::optional<CellLadder> cells)
    : n_bins_(std::move(n_bins)),
      max_bins_(max_bins),
      cells_(cells),
      check_patience_(check_patience),
      convergence_patience_(convergence_patience) {
  TRAILS_CHECK(!n_bins_.empty(), "ResolutionController needs at least one axis");
  for (int b : n_bins_) TRAILS_CHECK(b >= 1, "ResolutionController: n_bins must be >= 1");
  TRAILS_CHECK(max_bins_ >= 1, "ResolutionController: max_bins must be >= 1");
  TRAILS_CHECK(!cells_ || (cells_->cells >= 1 && cells_->max_cells >= 1),
               "ResolutionController: the cell ladder needs counts >= 1");
}

bool ResolutionController::at_max() const {
  if (cells_) return cells_->cells >= cells_->max_cells;
  return std::all_of(n_bins_.begin(), n_bins_.end(), [&](int b) { return b >= max_bins_; });
}

int ResolutionController::next_bins(int bins, int max_bins) {
  if (bins >= max_bins) return bins;
  // Python's int(1.15 * b): one IEEE double multiply, then truncation (b > 0, so toward zero
  // equals floor). 1.15 * 100 is 114.99999999999999 in doubles, so 100 -> 114, as in Python.
  const double grown = 1.15 * static_cast<double>(bins);
  int next = std::min(static_cast<int>(grown), max_bins);
  if (next == bins) ++next;  // bins < max_bins here, so +1 stays within the cap
  return next;
}

int ResolutionController::next_cells(int cells, int max_cells) {
  if (cells >= max_cells) return cells;
  // Python's int(1.5 * old), capped; +1 when truncation leaves it unchanged.
  int next = std::min(static_cast<int>(1.5 * static_cast<double>(cells)), max_cells);
  if (next == cells) ++next;
  return next;
}

ResolutionController::Update ResolutionController::observe(std::int64_t occupied_bins) {
  Update update;
  // (1) Occupancy convergence is only meaningful at the finest resolution: a coarser grid
  // saturates long before the sampling has.
  if (!at_max()) {
    stall_ = 0;
  } else {
    stall_ = (!last_occupied_ || occupied_bins > *last_occupied_) ? 0 : stall_ + 1;
  }
  last_occupied_ = occupied_bins;
  if (convergence_patience_ > 0 && stall_ >= convergence_patience_) {
    converged_ = true;
    reason_ = "No new occupied bins for " + std::to_string(stall_) +
              " iteration(s) after reaching maximum sampling resolution.";
  }
  update.converged = converged_;
  if (converged_) return update;

  // (2) A plateau of check_patience equal values means this grid is saturated: refine it.
  occupancy_history_.push_back(occupied_bins);
  const int p = check_patience_;
  if (p <= 0 || occupancy_history_.size() < static_cast<std::size_t>(p)) return update;
  const auto tail = occupancy_history_.end() - p;
  if (!std::all_of(tail, occupancy_history_.end(), [&](std::int64_t o) { return o == *tail; })) {
    return update;
  }
  occupancy_history_.clear();
  if (cells_) {
    const int next = next_cells(cells_->cells, cells_->max_cells);
    if (next != cells_->cells) {
      cells_->cells = next;
      stall_ = 0;
      update.cells_bumped = true;
    }
    return update;
  }
  bool changed = false;
  for (int& b : n_bins_) {
    const int next = next_bins(b, max_bins_);
    changed = changed || next != b;
    b = next;
  }
  if (changed) {
    stall_ = 0;
    update.bumped = true;
  }
  return update;
}

nlohmann::json ResolutionController::state() const {
  nlohmann::json j;
  j["version"] = 1;
  j["n_bins"] = n_bins_;
  j["occupancy_history"] = occupancy_history_;
  j["last_occupied"] = last_occupied_ ? nlohmann::json(*last_occupied_) : nlohmann::json(nullptr);
  j["stall"] = stall_;
  j["converged"] = converged_;
  j["reason"] = reason_;
  if (cells_) j["cells"] = cells_->cells;  // only with a cell ladder: grid states are unchanged
  return j;
}

void ResolutionController::restore(const nlohmann::json& state) {
  try {
    if (state.at("version").get<int>() != 1) {
      throw core::InputError("resolution state has unsupported version " +
                             state.at("version").dump());
    }
    auto n_bins = state.at("n_bins").get<std::vector<int>>();
    if (n_bins.size() != n_bins_.size()) {
      throw core::InputError("resolution state has " + std::to_string(n_bins.size()) +
                             " axes but the campaign has " + std::to_string(n_bins_.size()));
    }
    auto history = state.at("occupancy_history").get<std::vector<std::int64_t>>();
    std::optional<std::int64_t> last;
    if (!state.at("last_occupied").is_null()) last = state.at("last_occupied").get<std::int64_t>();
    const int stall = state.at("stall").get<int>();
    const bool converged = state.at("converged").get<bool>();
    auto reason = state.at("reason").get<std::string>();
    std::optional<int> cells;
    if (cells_) {
      cells = state.at("cells").get<int>();
      if (*cells < 1) throw core::InputError("resolution state has a cell count below 1");
    }
    // Commit only after every field parsed, so a bad state leaves this object untouched.
    n_bins_ = std::move(n_bins);
    occupancy_history_ = std::move(history);
    last_occupied_ = last;
    stall_ = stall;
    converged_ = converged;
    reason_ = std::move(reason);
    if (cells) cells_->cells = *cells;
  } catch (const nlohmann::json::exception& e) {
    throw core::InputError(std::string("malformed resolution state: ") + e.what());
  }
}

}  // namespace trails::binning
