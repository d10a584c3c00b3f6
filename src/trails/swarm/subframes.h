// Subframes (docs/swarm.md, "Subframes"): the reactive path as one continuous trajectory, made
// after the run by replaying every cycle's chosen trial (τ1, fresh velocities from its stored
// seed) and, when the anchor is its extension, the extension (τ2, velocities continued, its
// stored seed) from the stored anchor before it, with a frame every `subframe_stride` steps.
// Each replayed segment end is compared bitwise with the stored anchor; with an engine whose
// segment is a function of its seed they are equal. Reads the run store only; runs one engine
// instance on the calling thread.
#pragma once

#include <cstdint>
#include <vector>

#include "trails/config/swarm_config.h"

namespace trails::swarm {

struct SubframePath {
  int n_atoms = 0;
  int spatial_dim = 0;
  std::vector<double> positions;         // frames × n_atoms × spatial_dim
  std::vector<double> boxes;             // frames × 9, empty when the system has no box
  std::vector<std::int64_t> cycles;      // the cycle each frame belongs to
  std::vector<std::int64_t> path_steps;  // MD steps along the path at the frame
  std::int64_t anchors_replayed = 0;
  std::vector<std::int64_t> mismatched_cycles;  // cycles whose replayed end ≠ the stored anchor

  std::size_t n_frames() const { return cycles.size(); }
};

// One path per chain of the run in config.workdir, in chain order. Throws EngineError when a
// replayed segment fails (naming the chain and cycle).
std::vector<SubframePath> replay_subframes(const config::SwarmConfig& config);

}  // namespace trails::swarm
