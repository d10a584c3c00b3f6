// The first-Context gate and the build counter (context_builds.h).
#include "trails/engines/openmm/context_builds.h"

#include <atomic>
#include <set>

#include "trails/engines/openmm/platform.h"

namespace trails::engines::openmm {
namespace {

std::mutex& first_build_mutex() {
  static std::mutex m;
  return m;
}

std::set<std::string>& platforms_built() {  // guarded by first_build_mutex()
  static std::set<std::string> built;
  return built;
}

std::atomic<std::uint64_t>& builds() {
  static std::atomic<std::uint64_t> n{0};
  return n;
}

}  // namespace

ContextBuildGate::ContextBuildGate(const std::string& platform) : platform_(platform) {
  if (!is_gpu_platform(platform)) return;
  first_ = std::unique_lock<std::mutex>(first_build_mutex());
  if (platforms_built().count(platform) > 0) first_.unlock();
}

void ContextBuildGate::built() {
  builds().fetch_add(1, std::memory_order_relaxed);
  if (first_.owns_lock()) {
    platforms_built().insert(platform_);
    first_.unlock();
  }
}

void count_context_rebuild() { builds().fetch_add(1, std::memory_order_relaxed); }

std::uint64_t context_builds() { return builds().load(std::memory_order_relaxed); }

}  // namespace trails::engines::openmm
