// Device pools: CUDA_VISIBLE_DEVICES parsing and the logical -> physical mapping (unset, set,
// MIG tokens, out of range), slots_for, the executor factory's per-device concurrency, the MPS
// probe against faked pipe directories and process tables, and the binding comparison and its
// three modes, applied to Amber's GPU program and to GROMACS' -gpu_id record.
#include <gtest/gtest.h>

#include <unistd.h>
#include <array>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <latch>
#include <mutex>
#include <optional>
#include <thread>

#include "executor_kinds.h"
#include "support/files.h"
#include "trails/core/error.h"
#include "trails/engines/gromacs/mdrun_command.h"
#include "trails/engines/registry.h"
#include "trails/exec/local/binding_check.h"
#include "trails/exec/local/device_plan.h"
#include "trails/exec/local/mps_probe.h"

namespace trails::exec {
namespace {

namespace fs = std::filesystem;
using engines::SegmentResult;
using engines::SegmentTask;
using engines::Slot;

ExecutionOptions with_devices(std::vector<int> devices, int per_device = 1) {
  ExecutionOptions o;
  o.devices = std::move(devices);
  o.workers_per_device = per_device;
  return o;
}

std::string config_error(const ExecutionOptions& o, const VisibleDevices& v) {
  try {
    resolve_devices(o, v);
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(VisibleDevices, ParsesUnsetEmptyAndTokens) {
  EXPECT_FALSE(parse_visible_devices(nullptr).set);
  const VisibleDevices empty = parse_visible_devices("");
  EXPECT_TRUE(empty.set);
  EXPECT_TRUE(empty.tokens.empty());
  const VisibleDevices v = parse_visible_devices(" 4, 5 ,MIG-abc/1/0,,GPU-1234");
  EXPECT_TRUE(v.set);
  EXPECT_EQ(v.tokens, (std::vector<std::string>{"4", "5", "MIG-abc/1/0", "GPU-1234"}));
}

TEST(ResolveDevices, UnsetVariableKeepsLogicalIndices) {
  const DevicePlan plan = resolve_devices(with_devices({2, 0}, 3), VisibleDevices{});
  ASSERT_EQ(plan.devices.size(), 2u);
  EXPECT_EQ(plan.devices[0].logical, 2);
  EXPECT_EQ(plan.devices[0].physical, "2");
  EXPECT_EQ(plan.devices[1].physical, "0");
  EXPECT_EQ(plan.n_slots(), 6);
  EXPECT_EQ(plan.n_mig(), 0);
  EXPECT_EQ(plan.describe(), "devices 2,0 x 3 worker(s) per device = 6 slots");
}

TEST(ResolveDevices, SetVariableMapsThroughItsTokensAndRecognisesMig) {
  const VisibleDevices v = parse_visible_devices("6,7,MIG-4f2a/3/0");
  const DevicePlan plan = resolve_devices(with_devices({1, 2}), v);
  EXPECT_EQ(plan.devices[0].physical, "7");
  EXPECT_FALSE(plan.devices[0].mig);
  EXPECT_EQ(plan.devices[1].physical, "MIG-4f2a/3/0");
  EXPECT_TRUE(plan.devices[1].mig);
  EXPECT_EQ(plan.n_mig(), 1);
  EXPECT_EQ(plan.describe(),
            "devices 1,2 (CUDA_VISIBLE_DEVICES=6,7,MIG-4f2a/3/0 -> 7,MIG-4f2a/3/0) x 1 worker(s) "
            "per device = 2 slots");
  // The engine binds the in-process index: CUDA renumbers the visible devices from 0.
  const auto slots = slots_for(plan);
  EXPECT_EQ(slots[0].device, 1);
  EXPECT_EQ(slots[1].device, 2);
}

TEST(ResolveDevices, LogicalIndexBeyondTheVisibleListNamesKeyAndVariable) {
  const std::string e = config_error(with_devices({0, 2}), parse_visible_devices("3,5"));
  EXPECT_NE(e.find("execution.devices[1] = 2"), std::string::npos) << e;
  EXPECT_NE(e.find("CUDA_VISIBLE_DEVICES=\"3,5\""), std::string::npos) << e;
  EXPECT_NE(e.find("0..1"), std::string::npos) << e;
  // An empty variable hides every device.
  EXPECT_NE(config_error(with_devices({0}), parse_visible_devices("")).find("beyond"),
            std::string::npos);
  // ... but not when it is unset.
  EXPECT_EQ(config_error(with_devices({9}), VisibleDevices{}), "");
}

TEST(ResolveDevices, RejectsDuplicatesNegativesAndZeroWorkers) {
  ExecutionOptions o = with_devices({1, 1});
  o.devices_key = "engine.gpu_ids";
  EXPECT_NE(config_error(o, {}).find("engine.gpu_ids: device 1 is listed twice"),
            std::string::npos);
  EXPECT_NE(config_error(with_devices({-1}), {}).find("execution.devices[0] = -1"),
            std::string::npos);
  EXPECT_NE(
      config_error(with_devices({0}, 0), {}).find("execution.workers_per_device must be >= 1"),
      std::string::npos);
  EXPECT_TRUE(resolve_devices(ExecutionOptions{}, {}).devices.empty());
}

TEST(SlotsFor, DeviceMajorWithWorkersPerDevice) {
  const auto slots = slots_for(resolve_devices(with_devices({3, 1}, 2), {}));
  const std::vector<Slot> expected = {{0, 3, 0}, {1, 3, 1}, {2, 1, 0}, {3, 1, 1}};
  EXPECT_EQ(slots, expected);
  EXPECT_TRUE(slots_for(DevicePlan{}).empty());
}

// An engine whose instances know their slot: counts concurrent tasks per device, and can hold
// every task at a latch until `hold` tasks run at once.
class DeviceCountingEngine final : public engines::Engine {
 public:
  explicit DeviceCountingEngine(std::latch* hold) : hold_(hold) {}
  std::string name() const override { return "counting"; }
  using Engine::make_instance;
  std::unique_ptr<engines::EngineInstance> make_instance(const Slot& slot) const override {
    return std::make_unique<Instance>(*this, slot.device.value_or(0));
  }
  engines::Configuration default_start() const override { return {}; }
  const engines::EngineSystem& system() const override { return system_; }
  engines::EngineCapabilities capabilities() const override { return {}; }
  std::string describe() const override { return "counting"; }

  int peak(int device) const { return peak_.at(static_cast<std::size_t>(device)).load(); }

 private:
  struct Instance final : engines::EngineInstance {
    Instance(const DeviceCountingEngine& e, int d) : engine(e), device(d) {}
    SegmentResult run(const SegmentTask& task) override {
      auto& now = engine.running_.at(static_cast<std::size_t>(device));
      const int n = ++now;
      auto& peak = engine.peak_.at(static_cast<std::size_t>(device));
      for (int p = peak.load(); n > p && !peak.compare_exchange_weak(p, n);) {
      }
      if (engine.hold_ != nullptr) {
        engine.hold_->arrive_and_wait();
      } else {
        std::this_thread::sleep_for(std::chrono::microseconds(300));
      }
      --now;
      return testing::ok_result(task);
    }
    const DeviceCountingEngine& engine;
    int device;
  };
  std::latch* hold_;
  mutable std::array<std::atomic<int>, 8> running_{};
  mutable std::array<std::atomic<int>, 8> peak_{};
  engines::EngineSystem system_{.n_atoms = 1, .spatial_dim = 1};
};

TEST(DevicePool, AtMostWorkersPerDeviceRunOnEachDevice) {
  DeviceCountingEngine engine(nullptr);
  const ExecutionOptions o = with_devices({0, 1, 2}, 2);
  auto executor = make_executor(engine, resolve_devices(o, {}), o);
  EXPECT_EQ(run_ordered(*executor, testing::numbered_tasks(60)).size(), 60u);
  for (int d = 0; d < 3; ++d) EXPECT_LE(engine.peak(d), 2) << "device " << d;
}

TEST(DevicePool, EverySlotTakesAQueuedTask) {
  // 8 tasks that wait until 8 run at once: finishes only if no slot of 4 x 2 stays idle while
  // tasks are queued (a per-device queue that starves would hang here).
  std::latch all_running(8);
  DeviceCountingEngine engine(&all_running);
  const ExecutionOptions o = with_devices({0, 1, 2, 3}, 2);
  auto executor = make_executor(engine, resolve_devices(o, {}), o);
  EXPECT_EQ(run_ordered(*executor, testing::numbered_tasks(8)).size(), 8u);
  for (int d = 0; d < 4; ++d) EXPECT_EQ(engine.peak(d), 2) << "device " << d;
}

TEST(MakeExecutor, WithoutDevicesPicksSerialOrAThreadPool) {
  testing::ScriptedEngine engine(testing::ok_result);
  ExecutionOptions o;
  o.max_workers = 1;
  EXPECT_EQ(make_executor(engine, {}, o)->max_in_flight(), 1u);
  o.max_workers = 3;
  o.max_in_flight = 10;
  auto pool = make_executor(engine, {}, o);
  EXPECT_EQ(pool->workers(), 3);
  EXPECT_EQ(pool->max_in_flight(), 10u);
  EXPECT_FALSE(pool->slots()[2].device.has_value());
}

// The two-argument factory resolves through this process's CUDA_VISIBLE_DEVICES.
TEST(MakeExecutor, ResolvesThroughTheInheritedVariable) {
  testing::ScriptedEngine engine(testing::ok_result);
  const char* before = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::optional<std::string> saved =
      before ? std::optional<std::string>(before) : std::nullopt;
  ::setenv("CUDA_VISIBLE_DEVICES", "7,3", 1);
  ExecutionOptions o = with_devices({0, 1}, 2);
  const auto packed = make_executor(engine, o);
  EXPECT_EQ(packed->slots(), (std::vector<Slot>{{0, 0, 0}, {1, 0, 1}, {2, 1, 0}, {3, 1, 1}}));
  o.devices = {0, 2};
  EXPECT_THROW(make_executor(engine, o), core::ConfigError);
  if (saved) {
    ::setenv("CUDA_VISIBLE_DEVICES", saved->c_str(), 1);
  } else {
    ::unsetenv("CUDA_VISIBLE_DEVICES");
  }
}

// ---- MPS probe ----

class MpsProbe : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("trails-mps-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "proc" / "1");
    fs::create_directories(root_ / "proc" / "self");
    fs::create_directories(root_ / "default");
    fs::create_directories(root_ / "custom");
    write(root_ / "proc" / "1" / "comm", "init\n");
    write(root_ / "proc" / "self" / "comm", "nvidia-cuda-mps\n");  // not a pid: ignored
    in_.default_pipe_directory = root_ / "default";
    in_.proc_root = root_ / "proc";
  }
  void TearDown() override { fs::remove_all(root_); }
  static void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
  fs::path root_;
  MpsProbeInputs in_;
};

TEST_F(MpsProbe, NoPipeAndNoProcessMeansNoDaemon) {
  const MpsStatus s = probe_mps(in_);
  EXPECT_FALSE(s.daemon);
  EXPECT_EQ(describe_mps_mig(s, {}), "MPS control daemon: no");
}

TEST_F(MpsProbe, ControlPipeInTheDefaultOrTheConfiguredDirectory) {
  write(root_ / "default" / "control", "");
  EXPECT_EQ(probe_mps(in_).evidence, "control pipe " + (root_ / "default" / "control").string());
  in_.pipe_directory = root_ / "custom";  // the variable replaces the default directory
  EXPECT_FALSE(probe_mps(in_).daemon);
  write(root_ / "custom" / "control", "");
  EXPECT_TRUE(probe_mps(in_).daemon);
}

TEST_F(MpsProbe, AControlProcessCountsToo) {
  fs::create_directories(root_ / "proc" / "4242");
  write(root_ / "proc" / "4242" / "comm", "nvidia-cuda-mps\n");
  const MpsStatus s = probe_mps(in_);
  EXPECT_TRUE(s.daemon);
  EXPECT_EQ(s.evidence, "process nvidia-cuda-mps (pid 4242)");
}

TEST(PackingWarnings, WorkersPerDeviceWithoutMpsOnAGpuEngine) {
  const DevicePlan packed = resolve_devices(with_devices({0, 1}, 2), {});
  const std::string key = "execution.workers_per_device";
  EXPECT_EQ(packing_warnings(packed, true, {}, key).size(), 1u);
  EXPECT_NE(packing_warnings(packed, true, {}, key)[0].find("no MPS control daemon"),
            std::string::npos);
  EXPECT_TRUE(packing_warnings(packed, true, {true, "control pipe x"}, key).empty());
  EXPECT_TRUE(packing_warnings(packed, false, {}, key).empty());  // the built-in engine
  const DevicePlan single = resolve_devices(with_devices({0, 1}, 1), {});
  EXPECT_TRUE(packing_warnings(single, true, {}, key).empty());
  const DevicePlan migs =
      resolve_devices(with_devices({0, 1}), parse_visible_devices("MIG-a,MIG-b"));
  ASSERT_EQ(packing_warnings(migs, true, {}, key).size(), 1u);
  EXPECT_NE(packing_warnings(migs, true, {}, key)[0].find("2 MIG instances"), std::string::npos);
  EXPECT_EQ(describe_mps_mig({}, migs), "MPS control daemon: no; 2 MIG instance(s) in the plan");
}

// ---- binding check ----

SegmentResult placed(const std::string& platform, const std::string& device) {
  SegmentResult r;
  r.status = engines::SegmentStatus::Ok;
  r.platform = platform;
  r.device = device;
  return r;
}

TEST(BindingCheck, ReadsTheDeviceIndexOfAPlacementRecord) {
  EXPECT_EQ(recorded_device_index("CUDA device 1 NVIDIA H200"), 1);
  EXPECT_EQ(recorded_device_index("OpenCL device 12 pocl"), 12);
  EXPECT_EQ(recorded_device_index("HIP device 0 "), 0);
  EXPECT_EQ(recorded_device_index("CUDA device 3"), 3);
  EXPECT_FALSE(recorded_device_index("CPU threads=4"));
  EXPECT_FALSE(recorded_device_index("Reference"));
  EXPECT_FALSE(recorded_device_index(""));
  EXPECT_FALSE(recorded_device_index("CUDA device x"));
  EXPECT_FALSE(recorded_device_index("CUDA device 2x"));
}

// "kind: message" of the mismatch, or "match".
std::string mismatch(const Slot& slot, const std::string& platform, const std::string& device) {
  const auto m = compare_binding(slot, placed(platform, device));
  if (!m) return "match";
  return (m->kind == BindingMismatchKind::OtherDevice ? "other: " : "none: ") + m->message;
}

TEST(BindingCheck, ComparesRequestedAndActualDevice) {
  const Slot slot{3, 1, 1};
  EXPECT_EQ(mismatch(slot, "CUDA", "CUDA device 1 NVIDIA H200"), "match");
  EXPECT_EQ(mismatch(slot, "CUDA", "CUDA device 0 NVIDIA H200"),
            "other: slot 3 (device 1, worker 1) asked for device 1 but the walker ran on CUDA "
            "device 0 NVIDIA H200");
  EXPECT_EQ(mismatch(slot, "CPU", "CPU threads=2"),
            "none: slot 3 (device 1, worker 1) asked for device 1 but the walker ran without a "
            "device (CPU threads=2)");
  EXPECT_EQ(mismatch(slot, "Reference", ""),
            "none: slot 3 (device 1, worker 1) asked for device 1 but the walker ran without a "
            "device (Reference)");
  EXPECT_EQ(mismatch(Slot{}, "CPU", "CPU threads=2"), "match");  // nothing asked
}

// An engine that uses devices and always reports device 0, and notes in each result which
// device its slot asked for (the second coordinate).
class AlwaysDeviceZero final : public engines::Engine {
 public:
  std::string name() const override { return "device0"; }
  using Engine::make_instance;
  std::unique_ptr<engines::EngineInstance> make_instance(const Slot& slot) const override {
    return std::make_unique<Instance>(slot.device.value_or(-1));
  }
  engines::Configuration default_start() const override { return {}; }
  const engines::EngineSystem& system() const override { return system_; }
  engines::EngineCapabilities capabilities() const override { return {.uses_devices = true}; }
  std::string describe() const override { return "device0"; }

 private:
  struct Instance final : engines::EngineInstance {
    explicit Instance(int d) : asked(d) {}
    SegmentResult run(const SegmentTask& task) override {
      SegmentResult r = testing::ok_result(task);
      r.final_state.positions.push_back(asked);
      r.platform = "CUDA";
      r.device = "CUDA device 0 Fake";
      r.frames = {1.0};
      return r;
    }
    int asked;
  };
  engines::EngineSystem system_{.n_atoms = 1, .spatial_dim = 1};
};

std::vector<SegmentResult> run_with(BindingCheck mode, std::vector<int> devices) {
  AlwaysDeviceZero engine;
  ExecutionOptions o = with_devices(std::move(devices), 2);
  o.binding_check = mode;
  auto executor = make_executor(engine, resolve_devices(o, {}), o);
  return run_ordered(*executor, testing::numbered_tasks(12));
}

TEST(BindingCheck, FailModeFailsExactlyTheMisplacedWalkers) {
  for (const auto& r : run_with(BindingCheck::Fail, {0, 1})) {
    const bool asked_one = r.final_state.positions.at(1) == 1.0;
    EXPECT_EQ(r.ok(), !asked_one) << r.task_id;
    if (r.ok()) continue;
    const std::string head = "walker " + std::to_string(r.task_id) + " of iteration 0: slot ";
    EXPECT_EQ(r.error.rfind(head, 0), 0u) << r.error;
    const std::string tail =
        "asked for device 1 but the walker ran on CUDA device 0 Fake (execution.binding_check: "
        "fail; set it to warn or off to keep such walkers)";
    EXPECT_EQ(r.error.substr(r.error.size() - tail.size()), tail) << r.error;
    EXPECT_NE(r.error.find("(device 1, worker "), std::string::npos) << r.error;
    EXPECT_TRUE(r.frames.empty());
  }
  for (const auto& r : run_with(BindingCheck::Fail, {1})) EXPECT_FALSE(r.ok());
}

TEST(BindingCheck, WarnAndOffKeepEveryWalker) {
  for (const auto& r : run_with(BindingCheck::Warn, {1})) {
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r.frames, std::vector<double>{1.0});
  }
  for (const auto& r : run_with(BindingCheck::Off, {1})) EXPECT_TRUE(r.ok());
}

// Amber's pmemd.cuda (fake_pmemd.py under that name) uses devices, so a device pool checks its
// walkers: each records its slot's CUDA device, which the check reads as where it was asked to
// run, and none fails under binding_check: fail.
// A GROMACS walker with a task on the GPU records the -gpu_id it passed (its slot's device) in
// the form the check reads, so a device pool under binding_check: fail keeps it; on the CPU its
// record names no device.
TEST(BindingCheck, GromacsRecordsTheGpuIdItPassedAsItsDevice) {
  config::GromacsEngineConfig c;
  c.mdrun_nb = "gpu";
  for (const int device : {0, 1, 3}) {
    const engines::Slot slot{.index = 5, .device = device, .worker = 1};
    SegmentResult r;
    r.device = engines::gromacs::device_record(c, slot);
    EXPECT_EQ(recorded_device_index(r.device), device) << r.device;
    EXPECT_FALSE(compare_binding(slot, r)) << r.device;
  }
  c.mdrun_nb = std::nullopt;
  SegmentResult cpu;
  cpu.device = engines::gromacs::device_record(c, engines::Slot{.index = 5, .device = 1});
  EXPECT_EQ(cpu.device.rfind("CPU (-ntmpi ", 0), 0u) << cpu.device;
  EXPECT_FALSE(recorded_device_index(cpu.device));
}

TEST(BindingCheck, AmberOnTheGpuIsCheckedAndRunsWhereItsSlotAsked) {
  const fs::path dir = test_support::fresh_dir();
  fs::create_directories(dir / "bin");
  fs::create_symlink(fs::path(TRAILS_TEST_DATA) / "amber/fake_pmemd.py", dir / "bin/pmemd.cuda");
  config::AmberSpec spec;
  spec.executable = (dir / "bin/pmemd.cuda").string();
  spec.top_file = fs::path(TRAILS_TEST_DATA) / "openmm/argon-amber/argon2.prmtop";
  spec.conf_file = fs::path(TRAILS_TEST_DATA) / "openmm/argon-amber/argon2.inpcrd";
  spec.files.scratch = dir;
  const auto engine = engines::make_engine(spec, dir / "run");
  ASSERT_TRUE(engine->capabilities().uses_devices);
  ExecutionOptions o = with_devices({0, 1});
  o.binding_check = BindingCheck::Fail;
  auto executor = make_executor(*engine, resolve_devices(o, {}), o);
  std::vector<SegmentTask> tasks = testing::numbered_tasks(4);
  for (SegmentTask& t : tasks) {
    t.start = engine->default_start();
    t.steps = 50;
    t.stride = 25;
  }
  for (const SegmentResult& r : run_ordered(*executor, tasks)) {
    EXPECT_TRUE(r.ok()) << r.error;
    EXPECT_TRUE(r.device == "CUDA device 0" || r.device == "CUDA device 1") << r.device;
  }
}

}  // namespace
}  // namespace trails::exec
