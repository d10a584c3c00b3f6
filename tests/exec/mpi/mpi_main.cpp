// The main of test_exec_mpi, run under mpirun (tests/CMakeLists.txt): every rank makes the MPI
// world; rank 0 runs the tests, ranks 1..K-1 serve it as worker ranks with the engines the tests
// ship (the same loop and engine factory as `trails run` under mpirun). Exit code: rank 0's test
// result, the workers' loop result.
#include <gtest/gtest.h>

#include "trails/engines/registry.h"
#include "trails/exec/mpi/mpi_world.h"

int main(int argc, char** argv) {
  trails::exec::MpiWorld world;
  if (world.rank() != 0) {
    return world.serve(
        [](std::span<const std::uint8_t> setup) {
          return trails::engines::make_engine_from_setup(setup);
        },
        "test_exec_mpi worker");
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
