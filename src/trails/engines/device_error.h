// The words every engine uses for a walker that failed on its device's memory or resources
// (docs/engines.md, "Reproducibility" and "Device errors"), so that a driver can tell such a
// failure from one of the dynamics without knowing the engine.
#pragma once

#include <string>
#include <string_view>

namespace trails::engines {

inline constexpr std::string_view kDeviceResourceError =
    "the device ran out of memory or resources";

inline bool is_device_resource_error(const std::string& error) {
  return error.find(kDeviceResourceError) != std::string::npos;
}

}  // namespace trails::engines
