// Which OpenMM errors are the device's, not the dynamics': out of device memory or resources
// (OpenCL, CUDA, HIP). A walker that fails with one gets this advice in place of "reduce
// engine.dt", and is not re-run after an energy minimisation (that cannot help). Pure string
// work; include only from engines/openmm.
#pragma once

#include <string>

namespace trails::engines::openmm {

// What the error means and what to do, or "" when `what` is not a device resource error.
// Recognised: OpenCL calls failing with CL_MEM_OBJECT_ALLOCATION_FAILURE (-4),
// CL_OUT_OF_RESOURCES (-5), CL_OUT_OF_HOST_MEMORY (-6) or CL_INVALID_BUFFER_SIZE (-61) as OpenMM
// reports them ("clCreateBuffer (-61)"), CUDA_ERROR_OUT_OF_MEMORY,
// CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, hipErrorOutOfMemory, and "out of memory".
std::string device_resource_problem(const std::string& what);

}  // namespace trails::engines::openmm
