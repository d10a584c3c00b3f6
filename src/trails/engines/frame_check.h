// Sanity of what a segment produced, independent of any engine (docs/reliability.md, "Exploded
// frames" and "Non-finite values"): every value of a result must be finite, whatever program
// wrote it (an external program that exits 0 after writing NaN), and a bond stretched far past
// its reference length means the molecule blew apart even when every coordinate is finite.
// Lengths in nm.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "trails/engines/segment.h"

namespace trails::engines {

// Why a start configuration cannot be run (a non-finite position, velocity or box value), or
// none: "the start configuration is non-finite: position of atom 1, y is -inf".
std::optional<std::string> non_finite_start(const Configuration& start);

// Why an Ok result must not be used (the first non-finite value of its frames, boxes or final
// state, named by frame, atom and axis), or none. Failed results are not looked at.
std::optional<std::string> non_finite_result(const SegmentResult& result);

// The one rule for every engine and executor (exec::run_guarded applies it): a start that is not
// finite fails before the engine runs it, and an Ok result holding a non-finite value becomes
// Failed with the reason, so nothing non-finite ever reaches a driver.
void fail_if_non_finite(const SegmentTask& task, SegmentResult& result);

struct Bond {
  int i = 0;
  int j = 0;
  double r0 = 0.0;  // reference length (a bond's equilibrium length or a constraint distance)
};

struct BrokenBond {
  Bond bond;
  double length = 0.0;  // the (minimum-image) length found in the frame
  double limit = 0.0;   // bond_length_limit(bond.r0)
};

// The longest a bond may be in a sane frame: max(2 r0, r0 + 0.1 nm).
double bond_length_limit(double r0);

// The first bond (in the order given) longer than its limit, or none. positions: n_atoms × 3.
// box: empty (no periodicity) or 9 values, the rows a, b, c of the periodic box vectors in
// OpenMM's reduced form (a along x, b in the xy plane); lengths are then minimum-image ones,
// for orthorhombic and triclinic boxes alike. Bonds with an atom outside positions count as
// broken (length infinite), so a wrong bond list cannot pass silently.
std::optional<BrokenBond> first_broken_bond(std::span<const Bond> bonds,
                                            std::span<const double> positions,
                                            std::span<const double> box = {});

// "bond between atoms I and J is L nm long (reference R0 nm) at step S: the molecule blew apart"
// (atoms counted from 0, as in the System).
std::string describe(const BrokenBond& broken, std::int64_t step);

}  // namespace trails::engines
