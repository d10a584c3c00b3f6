// Coverage-based resolution ladder and occupancy convergence (compat:resolution-ladder).
// After `check_patience` equal consecutive occupancy values the grid is refined
// (n -> min(int(1.15 n), max), +1 if unchanged): 30→34→39→…→146→150. Occupancy convergence
// counts non-increasing values only once every axis is at max_bins. With a cell ladder (the
// Voronoi spawner's cell count) the plateau raises the cells instead (n -> min(int(1.5 n), max),
// +1 if unchanged: 150→225→…→3829→5000), the grid stays, and "at max" means the cells are.
// State is serialisable.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace trails::binning {

class ResolutionController {
 public:
  ResolutionController(std::vector<int> n_bins, int max_bins, int check_patience,
                       int convergence_patience);

  // A ladder of cells (initial count, cap) in place of the grid's bins.
  struct CellLadder {
    int cells;
    int max_cells;
  };
  ResolutionController(std::vector<int> n_bins, int max_bins, int check_patience,
                       int convergence_patience, std::optional<CellLadder> cells);

  struct Update {
    bool bumped = false;        // n_bins changed
    bool cells_bumped = false;  // the cell count changed
    bool converged = false;     // occupancy convergence reached now or earlier
  };
  Update observe(std::int64_t occupied_bins);

  const std::vector<int>& n_bins() const { return n_bins_; }
  bool at_max() const;
  bool converged() const { return converged_; }
  const std::string& reason() const { return reason_; }

  std::optional<int> cells() const {
    return cells_ ? std::optional<int>(cells_->cells) : std::nullopt;
  }

  static int next_bins(int bins, int max_bins);
  static int next_cells(int cells, int max_cells);

  nlohmann::json state() const;
  void restore(const nlohmann::json& state);

 private:
  std::vector<int> n_bins_;
  int max_bins_;
  std::optional<CellLadder> cells_;
  int check_patience_;
  int convergence_patience_;
  std::vector<std::int64_t> occupancy_history_;
  std::optional<std::int64_t> last_occupied_;
  int stall_ = 0;
  bool converged_ = false;
  std::string reason_;
};

}  // namespace trails::binning
