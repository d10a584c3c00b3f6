// Binding check (docs/execution.md, "Binding check"): does the device a walker actually ran on
// (SegmentResult::device, the placement record the ledger keeps) match the device its slot
// asked for? execution.binding_check warn logs one warning per kind of mismatch, fail turns the
// walker into a failure (the campaign's min_success_fraction then decides the iteration), off
// does nothing. Engines that do not use devices are never checked.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "trails/engines/engine.h"
#include "trails/exec/local/device_plan.h"

namespace trails::exec {

enum class BindingMismatchKind {
  OtherDevice,  // ran on a device with another index than the slot's
  NoDevice,     // ran without a device (CPU fallback, Reference, an unreadable record)
};

struct BindingMismatch {
  BindingMismatchKind kind;
  std::string message;  // "slot 3 (device 1, worker 1) asked for device 1 but ran on ..."
};

// The device index in a placement record: "CUDA device 1 NVIDIA H200" -> 1 (also OpenCL and
// HIP records, and GROMACS' "GPU device 1 (-gpu_id 1)"); none for "CPU threads=4", "Reference",
// "" and anything else.
std::optional<int> recorded_device_index(const std::string& device);

// The mismatch between what `slot` asked for and where the result says it ran; none when the
// slot asked for no device or the record shows that device.
std::optional<BindingMismatch> compare_binding(const engines::Slot& slot,
                                               const engines::SegmentResult& result);

// An engine whose instances run `inner`'s and apply `mode` to each result (used by
// make_executor for device pools of engines that use devices). `inner` must outlive the
// instances made; the returned engine itself may be destroyed once they are made.
std::unique_ptr<engines::Engine> binding_checked(const engines::Engine& inner, BindingCheck mode);

// The same check around instances made elsewhere (worker processes, MPI ranks, whose results
// carry the placement record their worker wrote): instances[i] serves slots[i]. Off gives them
// back unchanged.
std::vector<std::unique_ptr<engines::EngineInstance>> binding_checked(
    std::vector<std::unique_ptr<engines::EngineInstance>> instances,
    const std::vector<engines::Slot>& slots, BindingCheck mode);

}  // namespace trails::exec
