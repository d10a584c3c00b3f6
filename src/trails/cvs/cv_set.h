// A CvSet turns frames into CV rows: built once from CvSpecs and a Topology (all indices,
// references and backbone lookups resolved and validated up front, throwing core::ConfigError
// that names the CV), then compute() fills an n_frames × dimension() row-major matrix.
// compute() is const and thread-safe; with n_threads > 1 frames are split across threads, and
// the result is bitwise the same for any thread count (each frame is computed by the same code).
// Units: lengths nm (or Å where a spec says so), angles radians, contacts/Q dimensionless.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "trails/cvs/cv_spec.h"
#include "trails/structure/topology.h"

namespace trails::cvs {

class CvSet {
 public:
  // `reference_positions_nm` (n_atoms × 3) is the default reference for rmsd, fitted_coords and
  // q specs that carry no reference_positions_nm of their own (normally system.conf_file).
  CvSet(std::vector<CvSpec> specs, const structure::Topology& topology,
        std::optional<std::vector<double>> reference_positions_nm = std::nullopt);
  ~CvSet();
  CvSet(CvSet&&) noexcept;
  CvSet& operator=(CvSet&&) noexcept;

  int dimension() const;
  int n_atoms() const;
  std::vector<std::string> column_names() const;
  const std::vector<CvSpec>& specs() const;

  // frames: n_frames × n_atoms × 3 (nm). boxes: empty (no periodicity) or one optional box per
  // frame. out: n_frames × dimension(). Throws core::InputError on a size mismatch or a box that
  // is not in reduced triclinic form (before anything is written to out).
  void compute(std::span<const double> frames, int n_frames,
               std::span<const std::optional<structure::Box>> boxes, std::span<double> out,
               int n_threads = 1) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trails::cvs
