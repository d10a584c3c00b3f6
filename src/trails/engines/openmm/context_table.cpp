// The CPU-platform Context table lock (see context_table.h for why it exists). Writers pass a
// gate first, so re-arming workers are not starved by walkers that keep stepping.
#include "trails/engines/openmm/context_table.h"

#include <atomic>

namespace trails::engines::openmm {
namespace {

class ContextTableLock {
 public:
  std::unique_lock<std::shared_mutex> exclusive() {
    acquisitions_.fetch_add(1, std::memory_order_relaxed);
    std::lock_guard<std::mutex> gate(gate_);
    return std::unique_lock<std::shared_mutex>(table_);
  }
  std::shared_lock<std::shared_mutex> shared() {
    acquisitions_.fetch_add(1, std::memory_order_relaxed);
    { std::lock_guard<std::mutex> gate(gate_); }
    return std::shared_lock<std::shared_mutex>(table_);
  }
  std::uint64_t acquisitions() const { return acquisitions_.load(std::memory_order_relaxed); }

 private:
  std::mutex gate_;
  std::shared_mutex table_;
  std::atomic<std::uint64_t> acquisitions_{0};
};

ContextTableLock& context_table() {
  static ContextTableLock lock;
  return lock;
}

}  // namespace

bool needs_context_table_lock(const std::string& platform) { return platform == "CPU"; }

std::unique_lock<std::shared_mutex> exclusive_context_table(const std::string& platform) {
  if (!needs_context_table_lock(platform)) return {};
  return context_table().exclusive();
}

std::shared_lock<std::shared_mutex> shared_context_table(const std::string& platform) {
  if (!needs_context_table_lock(platform)) return {};
  return context_table().shared();
}

std::uint64_t context_table_acquisitions() { return context_table().acquisitions(); }

}  // namespace trails::engines::openmm
