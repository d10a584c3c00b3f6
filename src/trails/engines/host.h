// Where a walker ran, as every engine records it in its SegmentResult: this machine's host name
// and the device-visibility variables it inherited. Shared by every engine backend and by the
// worker loop of exec/ (docs/architecture.md, "Engines").
#pragma once

#include <string>

namespace trails::engines {

// This machine's host name, "unknown" when it cannot be read.
std::string host_name();

// "CUDA_VISIBLE_DEVICES=0,1" (and the HIP/ROCR/OpenCL analogues) joined by ", "; "" if none.
std::string visible_devices();

}  // namespace trails::engines
