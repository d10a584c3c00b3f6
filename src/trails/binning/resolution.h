// Coverage-based resolution ladder and occupancy convergence (compat:resolution-ladder).
// After `check_patience` equal consecutive occupancy values the grid is refined
// (n -> min(int(1.15 n), max), +1 if unchanged): 30→34→39→…→146→150. Occupancy convergence
// counts non-increasing values only once every axis is at max_bins. State is serialisable.
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

  struct Update {
    bool bumped = false;     // n_bins changed
    bool converged = false;  // occupancy convergence reached now or earlier
  };
  Update observe(std::int64_t occupied_bins);

  const std::vector<int>& n_bins() const { return n_bins_; }
  bool at_max() const;
  bool converged() const { return converged_; }
  const std::string& reason() const { return reason_; }

  static int next_bins(int bins, int max_bins);

  nlohmann::json state() const;
  void restore(const nlohmann::json& state);

 private:
  std::vector<int> n_bins_;
  int max_bins_;
  int check_patience_;
  int convergence_patience_;
  std::vector<std::int64_t> occupancy_history_;
  std::optional<std::int64_t> last_occupied_;
  int stall_ = 0;
  bool converged_ = false;
  std::string reason_;
};

}  // namespace trails::binning
