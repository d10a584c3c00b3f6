// Contact counts and the fraction of native contacts Q. Distances are nm, minimum image when a
// box is given. Pure functions, thread-safe; indices are not range-checked (CvSet does that).
#pragma once

#include <span>
#include <utility>
#include <vector>

#include "trails/cvs/periodic_box.h"
#include "trails/structure/topology.h"

namespace trails::cvs {

enum class SwitchingKind { Rational, Hard };

// Rational: s(r) = (1 − (r/r0)^n) / (1 − (r/r0)^m), evaluated as the ratio of the geometric sums
// Σ_{k<n} x^k / Σ_{k<m} x^k (x = r/r0), which is exact at r = r0 (s = n/m). Hard: s = 1 if r < r0.
struct SwitchingFunction {
  SwitchingKind kind = SwitchingKind::Rational;
  double r0_nm = 0.45;
  int n = 6;
  int m = 12;

  double operator()(double r_nm) const;
};

using AtomPair = std::pair<int, int>;

// Unordered pairs i < j, sorted, without duplicates or self pairs: all pairs within `a` when `b`
// is empty, else every (i ∈ a, j ∈ b).
std::vector<AtomPair> contact_pairs(std::span<const int> a, std::span<const int> b);

// Σ over pairs of s(r_ij).
double contact_count(std::span<const double> xyz, std::span<const AtomPair> pairs,
                     const SwitchingFunction& s, const PeriodicBox* box);

struct NativeContacts {
  std::vector<AtomPair> pairs;  // sorted i < j
  std::vector<double> r0_nm;    // distance of each pair in the reference
};

// Best–Hummer–Eaton native contacts (mdtraj documentation recipe): heavy-atom pairs (element not
// H) among `candidates` (empty = every atom) whose residues are more than `min_residue_separation`
// apart (|Δresindex| > separation) and that are closer than `cutoff_nm` in the reference.
NativeContacts find_native_contacts(const structure::Topology& topology,
                                    std::span<const double> reference,
                                    std::span<const int> candidates, double cutoff_nm = 0.45,
                                    int min_residue_separation = 3,
                                    const PeriodicBox* box = nullptr);

// Q = mean over native pairs of 1 / (1 + exp(β (r − λ r0))); β in 1/nm. 0 pairs → NaN.
double fraction_native_contacts(std::span<const double> xyz, const NativeContacts& native,
                                double beta_per_nm, double lambda, const PeriodicBox* box);

}  // namespace trails::cvs
