// Slot: where one warm EngineInstance lives — a position in an executor's slot table, the
// device it is bound to (if any) and which worker it is on that device. Executors own their
// slots and make one instance per slot (Engine::make_instance(slot)); engines read only
// `device` (docs/execution.md). A plain value, freely copied; no threads, no I/O.
#pragma once

#include <optional>
#include <string>

namespace trails::engines {

struct Slot {
  int index = 0;              // 0 .. n_slots-1 within the executor
  std::optional<int> device;  // the platform's device index (OpenMM DeviceIndex, ...);
                              // none: the engine's own configuration decides
  int worker = 0;             // 0 .. workers_per_device-1 on that device

  bool operator==(const Slot&) const = default;
};

// "slot 2 (device 1, worker 0)" or "slot 2" — for logs and error messages.
inline std::string describe(const Slot& slot) {
  std::string out = "slot " + std::to_string(slot.index);
  if (slot.device) {
    out += " (device " + std::to_string(*slot.device) + ", worker " + std::to_string(slot.worker) +
           ")";
  }
  return out;
}

}  // namespace trails::engines
