// Fresh start velocities for a GROMACS walker: Maxwell-Boltzmann at T from the walker's seed
// (core::Rng), centre-of-mass motion removed, zero for massless sites. What grompp's gen-vel
// does, drawn by Trails so that no grompp runs per walker (docs/engines.md, "Seeds").
#pragma once

#include <cstdint>
#include <vector>

namespace trails::engines::gromacs {

// masses in amu, temperature in K; returns n_atoms * 3 velocities in nm/ps.
std::vector<double> maxwell_boltzmann(const std::vector<double>& masses, double temperature,
                                      std::uint64_t seed);

}  // namespace trails::engines::gromacs
