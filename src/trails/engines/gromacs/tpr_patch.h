// One grompp per campaign, a new start state and seed per walker: the campaign's run input
// (.tpr) is written once by grompp from the start structure, a start TRR and an MDP with
// sentinel values (mdp.h); Trails then finds, once, where the run input holds the box, the
// positions and velocities and the ld-seed / nstxout / nstvout values, and writes each walker's
// run input as a copy of those bytes with these fields replaced (docs/engines.md, "One grompp
// per campaign"). Every field is located by a check that cannot pass by accident: the header's
// atom count and flags, the box at the start of the body, the start positions and velocities
// as grompp stored them (found exactly once), each sentinel exactly once after them. A run
// input where any check fails is refused with the reason (a GROMACS version with another
// layout), never patched blindly.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace trails::engines::gromacs {

struct TprLayout {
  int n_atoms = 0;
  std::size_t box = 0;      // 9 big-endian floats
  std::size_t x = 0;        // n_atoms * 3 floats
  std::size_t v = 0;        // n_atoms * 3 floats
  std::size_t ld_seed = 0;  // int64
  std::size_t nstxout = 0;  // int32
  std::size_t nstvout = 0;  // int32

  nlohmann::json to_json() const;
  static TprLayout from_json(const nlohmann::json& j);
};

// What grompp was given: the start positions, velocities and box (as doubles; grompp stores
// them as float).
struct TprStart {
  std::vector<double> positions;
  std::vector<double> velocities;
  std::array<double, 9> box{};
};

// Locates the fields in `tpr` (the bytes of grompp's output for `start` and mdp.h's
// sentinels). Throws InputError naming `name` and the check that failed.
TprLayout locate_tpr_fields(const std::string& tpr, const TprStart& start, const std::string& name);

struct WalkerRunInput {
  const std::vector<double>* positions = nullptr;   // n_atoms * 3, nm
  const std::vector<double>* velocities = nullptr;  // n_atoms * 3, nm/ps
  std::array<double, 9> box{};
  std::int64_t ld_seed = 0;
  std::int32_t stride = 1;  // nstxout = nstvout
};

// A copy of `base` with the walker's fields. Sizes are checked against the layout.
std::string patch_tpr(const std::string& base, const TprLayout& layout, const WalkerRunInput& in);

// The walker seed as GROMACS' ld-seed: non-negative int64 (-1 would mean "pick one").
std::int64_t ld_seed_of(std::uint64_t seed);

}  // namespace trails::engines::gromacs
