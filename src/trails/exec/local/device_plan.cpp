// Resolving logical devices through CUDA_VISIBLE_DEVICES, the slot table, and the one executor
// factory (docs/execution.md, "Devices and packing").
#include "trails/exec/local/device_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "trails/core/error.h"
#include "trails/exec/local/binding_check.h"

namespace trails::exec {
namespace {

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

}  // namespace

VisibleDevices parse_visible_devices(const char* value) {
  VisibleDevices v;
  if (value == nullptr) return v;
  v.set = true;
  const std::string text = value;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = std::min(text.find(',', start), text.size());
    if (std::string token = trimmed(text.substr(start, comma - start)); !token.empty()) {
      v.tokens.push_back(std::move(token));
    }
    start = comma + 1;
  }
  return v;
}

VisibleDevices inherited_visible_devices() {
  return parse_visible_devices(std::getenv("CUDA_VISIBLE_DEVICES"));
}

int DevicePlan::n_mig() const {
  return static_cast<int>(
      std::count_if(devices.begin(), devices.end(), [](const PlannedDevice& d) { return d.mig; }));
}

std::string DevicePlan::describe() const {
  std::vector<std::string> logical, physical;
  for (const auto& d : devices) {
    logical.push_back(std::to_string(d.logical));
    physical.push_back(d.physical);
  }
  std::string out = fmt::format("devices {}", joined(logical));
  if (visible.set) {
    out +=
        fmt::format(" (CUDA_VISIBLE_DEVICES={} -> {})", joined(visible.tokens), joined(physical));
  }
  return out + fmt::format(" x {} worker(s) per device = {} slots", workers_per_device, n_slots());
}

BindingCheck binding_check_of(std::string_view mode) {
  if (mode == "fail") return BindingCheck::Fail;
  if (mode == "off") return BindingCheck::Off;
  return BindingCheck::Warn;
}

std::string_view name(BindingCheck mode) {
  switch (mode) {
    case BindingCheck::Fail:
      return "fail";
    case BindingCheck::Off:
      return "off";
    case BindingCheck::Warn:
      break;
  }
  return "warn";
}

DevicePlan resolve_devices(const ExecutionOptions& options, const VisibleDevices& visible) {
  if (options.workers_per_device < 1) {
    throw core::ConfigError(
        fmt::format("{} must be >= 1 (got {})", options.workers_key, options.workers_per_device));
  }
  DevicePlan plan;
  plan.workers_per_device = options.workers_per_device;
  plan.visible = visible;
  for (std::size_t i = 0; i < options.devices.size(); ++i) {
    const int d = options.devices[i];
    if (d < 0) {
      throw core::ConfigError(
          fmt::format("{}[{}] = {}: a device index must be >= 0", options.devices_key, i, d));
    }
    if (std::count(options.devices.begin(), options.devices.end(), d) > 1) {
      throw core::ConfigError(fmt::format(
          "{}: device {} is listed twice; list each device once and raise {} to run more "
          "walkers on it",
          options.devices_key, d, options.workers_key));
    }
    PlannedDevice device{d, std::to_string(d), false};
    if (visible.set) {
      if (static_cast<std::size_t>(d) >= visible.tokens.size()) {
        throw core::ConfigError(fmt::format(
            "{}[{}] = {}: logical device {} is beyond CUDA_VISIBLE_DEVICES=\"{}\" ({} device(s) "
            "visible, logical indices 0..{}); logical indices count positions in that list",
            options.devices_key, i, d, d, joined(visible.tokens), visible.tokens.size(),
            static_cast<int>(visible.tokens.size()) - 1));
      }
      device.physical = visible.tokens[static_cast<std::size_t>(d)];
      device.mig = device.physical.rfind("MIG-", 0) == 0;
    }
    plan.devices.push_back(std::move(device));
  }
  return plan;
}

std::vector<engines::Slot> slots_for(const DevicePlan& plan) {
  std::vector<engines::Slot> slots;
  for (const auto& d : plan.devices) {
    for (int w = 0; w < plan.workers_per_device; ++w) {
      slots.push_back({static_cast<int>(slots.size()), d.logical, w});
    }
  }
  return slots;
}

std::unique_ptr<Executor> make_executor(const engines::Engine& engine, const DevicePlan& plan,
                                        const ExecutionOptions& options) {
  if (plan.devices.empty()) {
    if (options.max_workers <= 1) return make_serial_executor(engine);
    return make_thread_pool_executor(engine, options.max_workers, options.max_in_flight);
  }
  // The instances are made (and keep their checking wrapper) inside the pool's constructor.
  if (engine.capabilities().uses_devices && options.binding_check != BindingCheck::Off) {
    const auto checked = binding_checked(engine, options.binding_check);
    return make_thread_pool_executor(*checked, slots_for(plan), options.max_in_flight);
  }
  return make_thread_pool_executor(engine, slots_for(plan), options.max_in_flight);
}

std::unique_ptr<Executor> make_executor(const engines::Engine& engine,
                                        const ExecutionOptions& options) {
  return make_executor(engine, resolve_devices(options, inherited_visible_devices()), options);
}

}  // namespace trails::exec
