#include "trails/engines/gromacs/velocities.h"

#include <cmath>

#include "trails/core/rng.h"

namespace trails::engines::gromacs {

std::vector<double> maxwell_boltzmann(const std::vector<double>& masses, double temperature,
                                      std::uint64_t seed) {
  constexpr double kBoltz = 0.0083144626181532;  // kJ/(mol K), GROMACS' BOLTZ
  core::Rng rng = core::Rng::stream(seed, "gromacs-velocities");
  std::vector<double> v(masses.size() * 3, 0.0);
  double momentum[3] = {0, 0, 0};
  double total_mass = 0;
  for (std::size_t i = 0; i < masses.size(); ++i) {
    if (masses[i] <= 0) continue;  // virtual sites: GROMACS constructs them, no velocity
    const double sigma = std::sqrt(kBoltz * temperature / masses[i]);
    for (int d = 0; d < 3; ++d) {
      v[3 * i + d] = sigma * rng.normal();
      momentum[d] += masses[i] * v[3 * i + d];
    }
    total_mass += masses[i];
  }
  if (total_mass <= 0) return v;
  for (std::size_t i = 0; i < masses.size(); ++i) {
    if (masses[i] <= 0) continue;
    for (int d = 0; d < 3; ++d) v[3 * i + d] -= momentum[d] / total_mass;
  }
  return v;
}

}  // namespace trails::engines::gromacs
