#include "trails/cvs/contacts.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "trails/cvs/geometry.h"

namespace trails::cvs {

double SwitchingFunction::operator()(double r_nm) const {
  if (kind == SwitchingKind::Hard) return r_nm < r0_nm ? 1.0 : 0.0;
  const double x = r_nm / r0_nm;
  double num = 0.0, den = 0.0, p = 1.0;
  for (int k = 0; k < std::max(n, m); ++k) {
    if (k < n) num += p;
    if (k < m) den += p;
    p *= x;
  }
  return num / den;
}

std::vector<AtomPair> contact_pairs(std::span<const int> a, std::span<const int> b) {
  std::vector<AtomPair> pairs;
  auto add = [&](int i, int j) {
    if (i != j) pairs.emplace_back(std::min(i, j), std::max(i, j));
  };
  if (b.empty()) {
    for (std::size_t x = 0; x < a.size(); ++x)
      for (std::size_t y = x + 1; y < a.size(); ++y) add(a[x], a[y]);
  } else {
    for (int i : a)
      for (int j : b) add(i, j);
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

double contact_count(std::span<const double> xyz, std::span<const AtomPair> pairs,
                     const SwitchingFunction& s, const PeriodicBox* box) {
  double sum = 0.0;
  for (const auto& [i, j] : pairs) sum += s(distance(xyz, i, j, box));
  return sum;
}

NativeContacts find_native_contacts(const structure::Topology& topology,
                                    std::span<const double> reference,
                                    std::span<const int> candidates, double cutoff_nm,
                                    int min_residue_separation, const PeriodicBox* box) {
  std::vector<int> heavy;
  auto consider = [&](int i) {
    const std::string& e = topology.atoms[i].element;
    if (e != "H" && e != "h") heavy.push_back(i);
  };
  if (candidates.empty()) {
    for (int i = 0; i < topology.n_atoms(); ++i) consider(i);
  } else {
    for (int i : candidates) consider(i);
  }
  NativeContacts native;
  for (const auto& [i, j] : contact_pairs(heavy, {})) {
    if (std::abs(topology.atoms[i].resindex - topology.atoms[j].resindex) <= min_residue_separation)
      continue;
    const double r = distance(reference, i, j, box);
    if (r < cutoff_nm) {
      native.pairs.emplace_back(i, j);
      native.r0_nm.push_back(r);
    }
  }
  return native;
}

double fraction_native_contacts(std::span<const double> xyz, const NativeContacts& native,
                                double beta_per_nm, double lambda, const PeriodicBox* box) {
  if (native.pairs.empty()) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0.0;
  for (std::size_t p = 0; p < native.pairs.size(); ++p) {
    const double r = distance(xyz, native.pairs[p].first, native.pairs[p].second, box);
    sum += 1.0 / (1.0 + std::exp(beta_per_nm * (r - lambda * native.r0_nm[p])));
  }
  return sum / double(native.pairs.size());
}

}  // namespace trails::cvs
