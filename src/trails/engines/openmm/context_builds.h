// How this process builds OpenMM Contexts (private to engines/openmm): the first Context of each
// GPU-type platform (CUDA, OpenCL, HIP) is built alone, and every build is counted.
// Why alone: PoCL 3.1 (Debian's OpenCL on the CPU) fills in its device table at the first OpenCL
// call of a process without a lock, so threads that build their first Contexts at once can see a
// device with no memory, and OpenMM fails with "Error creating array posq: clCreateBuffer (-61)"
// (docs/engines.md, "Several Contexts on one device"). Once one Context exists, later ones are
// built concurrently. Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

namespace trails::engines::openmm {

// Scoped: blocks while another thread builds the first Context of `platform` in this process;
// holds that turn itself when none has been built yet (GPU-type platforms only).
class ContextBuildGate {
 public:
  explicit ContextBuildGate(const std::string& platform);
  // The Context exists: counted, and later builds of the platform no longer wait.
  void built();

 private:
  std::string platform_;
  std::unique_lock<std::mutex> first_;
};

// A Context rebuilt in place (Context::reinitialize), counted with the builds.
void count_context_rebuild();

// Contexts built or rebuilt in this process. Lets a test observe, without timing, that a fast
// re-arm rebuilds no kernels (docs/engines.md, "Reproducibility").
std::uint64_t context_builds();

}  // namespace trails::engines::openmm
