// The campaign's projection step: walker frames (n_atoms × spatial_dim coordinates, plus a box
// per frame for periodic systems) → rows of the fixed CV space the binner and spawner work in.
// The built-in engine's CV space is its particle coordinates (identity); molecular engines use
// a cvs::CvSet built from the config's `cvs:` block (see docs/cvs.md). project() is const and
// may be called from several threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace trails::features {

// The frames of one ok walker inside an iteration's stacked frames (walker order).
struct WalkerFrames {
  std::int64_t walker;
  std::int64_t n_frames;
};

class Projection {
 public:
  virtual ~Projection() = default;
  virtual int dimension() const = 0;
  virtual std::vector<std::string> column_names() const = 0;
  // Per column, the unit a projection knows of its own ("rad", "nm", ...), recorded with the run
  // for axis labels; empty when the units come from the configuration (docs/report.md).
  virtual std::vector<std::string> column_units() const { return {}; }
  // Appends n_frames × dimension() values to `out`. frames: n_frames × n_atoms × spatial_dim;
  // boxes: n_frames × 9 (vectors as rows) or empty for a system without a box.
  virtual void project(std::span<const double> frames, std::int64_t n_frames,
                       std::span<const double> boxes, std::vector<double>& out) const = 0;
  // One iteration's frames, split by walker (`walkers` in order; their n_frames sum to
  // n_frames). Projections that need each walker's trajectory (system.project_file) override
  // it; the default ignores the split.
  virtual void project_iteration(std::int64_t iteration, std::span<const WalkerFrames> walkers,
                                 std::span<const double> frames, std::int64_t n_frames,
                                 std::span<const double> boxes, std::vector<double>& out) const {
    (void)iteration;
    (void)walkers;
    project(frames, n_frames, boxes, out);
  }
  // True when CV rows are the coordinates themselves: restart frames can then be taken from the
  // CV history and no copy of the positions needs to be kept.
  virtual bool is_identity() const { return false; }
  // Per column: the period of a periodic CV (a raw angle: 2π), 0 for a non-periodic one; for
  // minimum-image differences in CV space (docs/swarm.md, "Progress").
  virtual std::vector<double> periods() const {
    return std::vector<double>(static_cast<std::size_t>(dimension()), 0.0);
  }
};

// CV rows = coordinates (n_values per frame), for the built-in analytic engine.
std::unique_ptr<Projection> make_identity_projection(int n_values);

}  // namespace trails::features
