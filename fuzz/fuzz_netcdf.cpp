// The Amber NetCDF readers (engines/amber/amber_netcdf.h), trajectory and restart, on arbitrary
// bytes as a .nc file. The atom count they are asked for comes from the first byte, so that a
// file's own count is sometimes the one expected.
#include <cstddef>
#include <cstdint>

#include "fuzz_input.h"
#include "trails/engines/amber/amber_netcdf.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  namespace amber = trails::engines::amber;
  const int n_atoms = 1 + data[0] % 8;
  trails::fuzz::read_as_file(data + 1, size - 1, ".nc", [&](const auto& file) {
    if (amber::is_netcdf(file)) (void)amber::read_netcdf_trajectory(file, n_atoms);
  });
  return trails::fuzz::read_as_file(data + 1, size - 1, ".nc", [&](const auto& file) {
    if (amber::is_netcdf(file)) (void)amber::read_netcdf_restart(file, n_atoms);
  });
}
