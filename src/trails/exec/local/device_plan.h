// Device pools (docs/execution.md, "Devices and packing"): which devices a driver's slots are
// bound to and how many workers share each. Independent of config/: a driver (the campaign, the
// swarm) fills ExecutionOptions from its own keys and calls make_executor(). Logical device
// indices are positions in an inherited CUDA_VISIBLE_DEVICES, as batch schedulers set it; the
// slot binds the in-process (visible) index and the physical token is kept for logs and checks.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trails/engines/engine.h"
#include "trails/exec/executor.h"

namespace trails::exec {

enum class BindingCheck { Warn, Fail, Off };
// execution.binding_check's words: "warn" | "fail" | "off" (anything else reads as warn: the
// schema admits no other).
BindingCheck binding_check_of(std::string_view mode);
std::string_view name(BindingCheck mode);

// What a driver asks for. Empty `devices`: no device pool; `max_workers` unbound slots.
struct ExecutionOptions {
  std::vector<int> devices;  // logical device indices (>= 0, distinct)
  int workers_per_device = 1;
  int max_workers = 1;            // without devices: <= 1 serial, else a thread pool
  std::size_t max_in_flight = 0;  // 0: twice the slot count
  BindingCheck binding_check = BindingCheck::Warn;
  // Names used in error messages, so each driver's own keys appear there.
  std::string devices_key = "execution.devices";
  std::string workers_key = "execution.workers_per_device";
};

// CUDA_VISIBLE_DEVICES as the process inherited it: unset, or its comma-separated tokens
// (integers, GPU-/MIG- UUIDs) in order. An empty value is set with no tokens (no GPU visible).
struct VisibleDevices {
  bool set = false;
  std::vector<std::string> tokens;
};
VisibleDevices parse_visible_devices(const char* value);  // value: getenv() result or nullptr
VisibleDevices inherited_visible_devices();               // from this process's environment

// One device of the plan: the logical index configured, the index the engine binds inside this
// process (slot.device; equal to the logical index), and the physical device it is.
struct PlannedDevice {
  int logical = 0;
  std::string physical;  // the CUDA_VISIBLE_DEVICES token, or the logical index when unset
  bool mig = false;      // a MIG instance ("MIG-..." token)
};

struct DevicePlan {
  std::vector<PlannedDevice> devices;
  int workers_per_device = 1;
  VisibleDevices visible;

  int n_slots() const { return static_cast<int>(devices.size()) * workers_per_device; }
  int n_mig() const;
  // "devices 0,1 (CUDA_VISIBLE_DEVICES=4,5 -> physical 4,5) x 2 workers per device"
  std::string describe() const;
};

// Checks the options against `visible`: devices >= 0 and distinct, workers_per_device >= 1, a
// logical index within CUDA_VISIBLE_DEVICES when that is set. Throws ConfigError naming the
// key (and the variable). Empty options.devices gives an empty plan.
DevicePlan resolve_devices(const ExecutionOptions& options, const VisibleDevices& visible);

// Device-major slots: slot i = device i / workers_per_device, worker i % workers_per_device,
// slot.device the device's in-process index.
std::vector<engines::Slot> slots_for(const DevicePlan& plan);

// The one executor factory every driver calls. With devices: a pool over slots_for(plan) (at
// most workers_per_device tasks per device, since each slot runs one task at a time), results
// passed through the binding check when the engine uses devices. Without: serial for
// max_workers <= 1, else a thread pool of max_workers unbound slots.
std::unique_ptr<Executor> make_executor(const engines::Engine& engine, const DevicePlan& plan,
                                        const ExecutionOptions& options);
// The same with the plan resolved through this process's CUDA_VISIBLE_DEVICES (ConfigError as
// resolve_devices); for drivers that need no plan of their own (banner, records).
std::unique_ptr<Executor> make_executor(const engines::Engine& engine,
                                        const ExecutionOptions& options);

}  // namespace trails::exec
