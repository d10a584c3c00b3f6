// SerialExecutor, the reference semantics every other executor must reproduce: one slot, one
// warm instance; submit runs the task at once through run_guarded on the calling thread and
// queues its result; next_completed hands results back in submission order. Nothing runs
// concurrently, so max_in_flight is 1 and in_flight() is 0 whenever submit is not running.
// Not thread-safe: one thread drives it.
#include <deque>

#include "trails/core/error.h"
#include "trails/exec/executor.h"

namespace trails::exec {
namespace {

class SerialExecutor final : public Executor {
 public:
  explicit SerialExecutor(const engines::Engine& engine)
      : slots_{engines::Slot{}}, instance_(engine.make_instance(slots_.front())) {}
  ~SerialExecutor() override { shutdown(); }

  void submit(engines::SegmentTask task) override {
    if (!instance_) throw core::InternalError("SerialExecutor::submit after shutdown");
    running_ = 1;
    done_.push_back(run_guarded(*instance_, task));
    running_ = 0;
  }
  std::optional<engines::SegmentResult> next_completed() override {
    if (done_.empty()) return std::nullopt;
    engines::SegmentResult result = std::move(done_.front());
    done_.pop_front();
    return result;
  }
  std::size_t in_flight() const override { return running_; }
  std::size_t results_waiting() const override { return done_.size(); }
  std::size_t max_in_flight() const override { return 1; }
  const std::vector<engines::Slot>& slots() const override { return slots_; }
  void shutdown() override {
    instance_.reset();
    done_.clear();
  }

 private:
  std::vector<engines::Slot> slots_;
  std::unique_ptr<engines::EngineInstance> instance_;  // warm across tasks and batches
  std::deque<engines::SegmentResult> done_;
  std::size_t running_ = 0;
};

}  // namespace

std::unique_ptr<Executor> make_serial_executor(const engines::Engine& engine) {
  return std::make_unique<SerialExecutor>(engine);
}

}  // namespace trails::exec
