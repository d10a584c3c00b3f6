#include "trails/engines/host.h"

#include <unistd.h>

#include <array>
#include <cstdlib>

namespace trails::engines {

std::string host_name() {
  std::array<char, 256> buffer{};
  if (::gethostname(buffer.data(), buffer.size() - 1) != 0) return "unknown";
  return buffer.data();
}

std::string visible_devices() {
  std::string out;
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
                           "GPU_DEVICE_ORDINAL"}) {
    if (const char* v = std::getenv(name); v != nullptr) {
      out += (out.empty() ? "" : ", ") + std::string(name) + "=" + v;
    }
  }
  return out;
}

}  // namespace trails::engines
