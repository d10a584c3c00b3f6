// The binding comparison and the engine decorator that applies it per result. Warnings are
// shared by every instance of one executor: one per mismatch kind for the executor's life.
#include "trails/exec/local/binding_check.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <array>
#include <atomic>
#include <charconv>

#include "trails/core/error.h"
#include "trails/exec/local/engine_decorator.h"

namespace trails::exec {
namespace {

struct Warned {
  std::array<std::atomic<bool>, 2> kinds{};  // indexed by BindingMismatchKind
};

class CheckedInstance final : public engines::EngineInstance {
 public:
  CheckedInstance(std::unique_ptr<engines::EngineInstance> inner, engines::Slot slot,
                  BindingCheck mode, std::shared_ptr<Warned> warned)
      : inner_(std::move(inner)), slot_(slot), mode_(mode), warned_(std::move(warned)) {}

  engines::SegmentResult run(const engines::SegmentTask& task) override {
    engines::SegmentResult result = inner_->run(task);
    if (mode_ == BindingCheck::Off || !result.ok()) return result;
    const auto mismatch = compare_binding(slot_, result);
    if (!mismatch) return result;
    if (mode_ == BindingCheck::Fail) {
      result.status = engines::SegmentStatus::Failed;
      result.error = fmt::format(
          "walker {} of iteration {}: {} (execution.binding_check: fail; set it to warn or off "
          "to keep such walkers)",
          task.walker, task.iteration, mismatch->message);
      result.frames.clear();
      result.frame_boxes.clear();
      return result;
    }
    auto& flag = warned_->kinds.at(static_cast<std::size_t>(mismatch->kind));
    if (!flag.exchange(true)) {
      spdlog::warn("{} (execution.binding_check: warn; shown once per kind of mismatch)",
                   mismatch->message);
    }
    return result;
  }

 private:
  std::unique_ptr<engines::EngineInstance> inner_;
  engines::Slot slot_;
  BindingCheck mode_;
  std::shared_ptr<Warned> warned_;
};

class CheckedEngine final : public EngineDecorator {
 public:
  CheckedEngine(const engines::Engine& inner, BindingCheck mode)
      : EngineDecorator(inner), mode_(mode) {}

 protected:
  std::unique_ptr<engines::EngineInstance> wrap(std::unique_ptr<engines::EngineInstance> instance,
                                                const engines::Slot& slot) const override {
    return std::make_unique<CheckedInstance>(std::move(instance), slot, mode_, warned_);
  }

 private:
  BindingCheck mode_;
  std::shared_ptr<Warned> warned_ = std::make_shared<Warned>();
};

}  // namespace

std::optional<int> recorded_device_index(const std::string& device) {
  constexpr std::string_view marker = " device ";
  const auto at = device.find(marker);
  if (at == std::string::npos || at == 0) return std::nullopt;
  const char* first = device.data() + at + marker.size();
  const char* last = device.data() + device.size();
  int index = -1;
  const auto [end, ec] = std::from_chars(first, last, index);
  if (ec != std::errc() || end == first || index < 0) return std::nullopt;
  if (end != last && *end != ' ') return std::nullopt;
  return index;
}

std::optional<BindingMismatch> compare_binding(const engines::Slot& slot,
                                               const engines::SegmentResult& result) {
  if (!slot.device) return std::nullopt;
  const auto ran = recorded_device_index(result.device);
  const std::string where = result.device.empty() ? result.platform : result.device;
  if (!ran) {
    return BindingMismatch{
        BindingMismatchKind::NoDevice,
        fmt::format("{} asked for device {} but the walker ran without a device ({})",
                    engines::describe(slot), *slot.device, where.empty() ? "no record" : where)};
  }
  if (*ran != *slot.device) {
    return BindingMismatch{BindingMismatchKind::OtherDevice,
                           fmt::format("{} asked for device {} but the walker ran on {}",
                                       engines::describe(slot), *slot.device, where)};
  }
  return std::nullopt;
}

std::unique_ptr<engines::Engine> binding_checked(const engines::Engine& inner, BindingCheck mode) {
  return std::make_unique<CheckedEngine>(inner, mode);
}

std::vector<std::unique_ptr<engines::EngineInstance>> binding_checked(
    std::vector<std::unique_ptr<engines::EngineInstance>> instances,
    const std::vector<engines::Slot>& slots, BindingCheck mode) {
  if (mode == BindingCheck::Off) return instances;
  TRAILS_CHECK(instances.size() == slots.size(), "one instance per slot");
  const auto warned = std::make_shared<Warned>();
  for (std::size_t i = 0; i < instances.size(); ++i)
    instances[i] =
        std::make_unique<CheckedInstance>(std::move(instances[i]), slots[i], mode, warned);
  return instances;
}

}  // namespace trails::exec
