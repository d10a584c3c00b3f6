// mpi_slots (exec/mpi/mpi_executor.h): which slot and device each worker rank of an MPI job serves.
// Pure: no MPI needed (the executor itself runs under mpirun: tests/exec/mpi/).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "trails/core/error.h"
#include "trails/exec/mpi/mpi_executor.h"

namespace trails::exec {
namespace {

DevicePlan plan_of(std::vector<int> devices, int per_device) {
  ExecutionOptions o;
  o.devices = std::move(devices);
  o.workers_per_device = per_device;
  return resolve_devices(o, VisibleDevices{});
}

TEST(MpiSlots, OneUnboundSlotPerWorkerRankWithoutDevices) {
  const auto slots = mpi_slots({"a", "a", "a", "b"}, DevicePlan{}, {});
  ASSERT_EQ(slots.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(slots[static_cast<std::size_t>(i)], (engines::Slot{i, std::nullopt, 0}));
  }
}

// The device plan per host: the n-th worker rank of a host (rank order, rank 0 not counted)
// takes the n-th slot of slots_for(plan) on that host.
TEST(MpiSlots, DevicesAreAssignedPerHostLikeTheDevicePlan) {
  const std::vector<std::string> hosts = {"n0", "n0", "n1", "n0", "n1", "n0", "n0"};
  const auto slots = mpi_slots(hosts, plan_of({2, 5}, 2), {});
  const std::vector<engines::Slot> expected = {
      {0, 2, 0},  // rank 1: n0's first worker rank
      {1, 2, 0},  // rank 2: n1's first
      {2, 2, 1},  // rank 3: n0's second
      {3, 2, 1},  // rank 4: n1's second
      {4, 5, 0},  // rank 5: n0's third
      {5, 5, 1},  // rank 6: n0's fourth
  };
  EXPECT_EQ(slots, expected);
}

TEST(MpiSlots, MoreWorkerRanksOnAHostThanSlotsIsAConfigError) {
  ExecutionOptions keys;
  try {
    mpi_slots({"n0", "n0", "n0", "n0"}, plan_of({0}, 2), keys);
    FAIL() << "three worker ranks on n0 for 2 slots were accepted";
  } catch (const core::ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("host n0"), std::string::npos) << what;
    EXPECT_NE(what.find("execution.devices"), std::string::npos) << what;
    EXPECT_NE(what.find("execution.workers_per_device"), std::string::npos) << what;
  }
}

TEST(MpiSlots, AJobWithoutWorkerRanksIsAConfigError) {
  EXPECT_THROW(mpi_slots({"n0"}, DevicePlan{}, {}), core::ConfigError);
}

}  // namespace
}  // namespace trails::exec
