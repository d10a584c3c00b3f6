// bench/openmm_overhead: what Trails' OpenMM engine costs on top of raw OpenMM, and what it saves
// against Trails-MD's per-walker pattern. CPU platform, W walkers × S steps, frames every `stride`.
//   (a) raw:       one OpenMM C++ Context, created once (untimed), integrator.step(S) per walker
//   (b) trails:    one warm EngineInstance, re-armed per walker (seed, positions, velocities),
//                  frames in memory; (b)/(a) is the engine's overhead (goal >= 0.95)
//   (c) trails-md: per walker a new Context, then step(stride) + getState + a file write per frame
//                  (a reporter without XTC compression: a lower bound on Trails-MD's cost)
// Plus the cost of the two ways to re-seed a Context: reinitialize() vs a new Context.
//   (d) campaign:  with --campaign, instead of (b) and (c): one iteration of a real `trails run`
//                  campaign (examples/alanine-dipeptide/solvated/config.yaml with W walkers × S
//                  steps, one worker) between two raw runs (a), so kernel drift shows; its walker
//                  phase (executor wall, output.log's runner_s) against (a)
// Usage: bench_openmm_overhead [--campaign] [PREPARED_DIR] [WALKERS] [STEPS] [STRIDE]
// (default: examples/alanine-dipeptide/solvated/prepared, 8, 5000, 100; threads from
// OPENMM_CPU_THREADS, else 1).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <OpenMM.h>
#include <fmt/format.h>

#include "trails/campaign/campaign.h"
#include "trails/config/load.h"
#include "trails/engines/openmm/openmm_engine.h"
#include "trails/engines/openmm/platform.h"
#include "trails/engines/openmm/prepared_system.h"
#include "trails/store/run_store.h"

namespace om = trails::engines::openmm;
namespace eng = trails::engines;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

struct Split {
  double total = 0, create = 0, rearm = 0, integrate = 0, extract = 0;
};

std::vector<OpenMM::Vec3> vec3(const std::vector<double>& f) {
  std::vector<OpenMM::Vec3> v(f.size() / 3);
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = OpenMM::Vec3(f[3 * i], f[3 * i + 1], f[3 * i + 2]);
  return v;
}

std::unique_ptr<OpenMM::System> load_system(const om::PreparedSystem& p) {
  std::ifstream in(p.system_xml);
  return std::unique_ptr<OpenMM::System>(OpenMM::XmlSerializer::deserialize<OpenMM::System>(in));
}

std::map<std::string, std::string> cpu_props() {
  return om::platform_properties("CPU", "mixed", std::nullopt, om::cpu_threads_from_env());
}

void set_start(OpenMM::Context& c, const om::PreparedSystem& p, int seed) {
  if (p.box.size() == 9) {
    auto b = vec3(p.box);
    c.setPeriodicBoxVectors(b[0], b[1], b[2]);
  }
  c.setPositions(vec3(p.positions));
  c.setVelocitiesToTemperature(300.0, seed);
}

Split run_raw(const om::PreparedSystem& p, int walkers, int steps) {
  auto system = load_system(p);
  OpenMM::LangevinMiddleIntegrator integrator(300.0, 1.0, 0.002);
  integrator.setConstraintTolerance(1e-6);
  OpenMM::Context context(*system, integrator, OpenMM::Platform::getPlatformByName("CPU"),
                          cpu_props());
  Split s;
  for (int w = 0; w < walkers; ++w) {
    set_start(context, p, 100 + w);
    const auto t = Clock::now();
    integrator.step(steps);
    s.integrate += since(t);
  }
  s.total = s.integrate;
  return s;
}

// Any engine, any tasks: the walker phase of a campaign in one worker.
Split run_trails(const eng::Engine& engine, const std::vector<eng::SegmentTask>& tasks) {
  Split s;
  auto instance = engine.make_instance();
  bool first = true;
  const auto t0 = Clock::now();
  for (const auto& task : tasks) {
    const eng::SegmentResult r = instance->run(task);
    if (!r.ok()) {
      fmt::print(stderr, "walker failed: {}\n", r.error);
      std::exit(1);
    }
    (first ? s.create : s.rearm) += r.startup_s;
    first = false;
    s.integrate += r.integrate_s;
    s.extract += r.extract_s;
  }
  s.total = since(t0);
  return s;
}

Split run_trails_md(const om::PreparedSystem& p, int walkers, int steps, int stride) {
  Split s;
  const auto dir = std::filesystem::temp_directory_path() / "trails-bench-openmm";
  std::filesystem::create_directories(dir);
  const auto t0 = Clock::now();
  for (int w = 0; w < walkers; ++w) {
    auto tc = Clock::now();
    auto system = load_system(p);
    OpenMM::LangevinMiddleIntegrator integrator(300.0, 1.0, 0.002);
    integrator.setRandomNumberSeed(100 + w);
    integrator.setConstraintTolerance(1e-6);
    OpenMM::Context context(*system, integrator, OpenMM::Platform::getPlatformByName("CPU"),
                            cpu_props());
    set_start(context, p, 100 + w);
    s.create += since(tc);
    std::ofstream out(dir / fmt::format("walker_{}.bin", w), std::ios::binary);
    std::vector<float> frame(3 * p.n_atoms);
    for (int done = 0; done < steps; done += stride) {
      auto ti = Clock::now();
      integrator.step(stride);
      s.integrate += since(ti);
      auto te = Clock::now();
      const OpenMM::State st = context.getState(OpenMM::State::Positions, true);
      const auto& x = st.getPositions();
      for (int i = 0; i < p.n_atoms; ++i) {
        for (int k = 0; k < 3; ++k) frame[3 * i + k] = static_cast<float>(x[i][k]);
      }
      out.write(reinterpret_cast<const char*>(frame.data()),
                static_cast<std::streamsize>(frame.size() * sizeof(float)));
      out.flush();
      s.extract += since(te);
    }
  }
  s.total = since(t0);
  std::filesystem::remove_all(dir);
  return s;
}

// (d): one iteration of a real campaign on the solvated example, one worker, its own run dir.
struct CampaignSplit {
  double runner = 0, startup = 0, integrate = 0, wall = 0;
};

class QuietSink : public trails::campaign::ProgressSink {
 public:
  void started(const std::vector<std::string>&) override {}
  void iteration(const trails::campaign::IterationReport& r) override {
    runner_s = r.summary.runner_s;
  }
  void finished(const trails::campaign::CampaignOutcome&) override {}
  double runner_s = 0;
};

CampaignSplit run_campaign_iteration(int walkers, int steps, int stride) {
  auto config = trails::config::load_campaign_config(
      std::filesystem::path(TRAILS_SOURCE_DIR) / "examples/alanine-dipeptide/solvated/config.yaml");
  const auto dir = std::filesystem::temp_directory_path() / "trails-bench-openmm-campaign";
  std::filesystem::remove_all(dir);
  config.outdir = dir;
  config.spawning.walker = walkers;
  config.spawning.step = steps;
  config.spawning.stride = stride;
  config.spawning.max_workers = 1;
  trails::campaign::RunOptions options;
  options.target_iterations = 1;
  QuietSink sink;
  const auto t0 = Clock::now();
  (void)trails::campaign::run_campaign(config, options, sink);
  CampaignSplit s;
  s.wall = since(t0);
  s.runner = sink.runner_s;
  const auto store = trails::store::RunStore::open(dir, trails::store::RunStore::Mode::ReadOnly);
  for (const auto& w : store.walker_placements(0)) {
    s.startup += w.startup_s;
    s.integrate += w.integrate_s;
  }
  std::filesystem::remove_all(dir);
  return s;
}

// Mean seconds of a re-seed by Context::reinitialize() vs building a new Context.
std::pair<double, double> reseed_costs(const om::PreparedSystem& p, int n) {
  auto system = load_system(p);
  OpenMM::LangevinMiddleIntegrator integrator(300.0, 1.0, 0.002);
  auto context = std::make_unique<OpenMM::Context>(
      *system, integrator, OpenMM::Platform::getPlatformByName("CPU"), cpu_props());
  auto t = Clock::now();
  for (int i = 0; i < n; ++i) {
    integrator.setRandomNumberSeed(i + 1);
    context->reinitialize(false);
    set_start(*context, p, i + 1);
  }
  const double reinit = since(t) / n;
  context.reset();
  t = Clock::now();
  for (int i = 0; i < n; ++i) {  // an integrator binds to one Context for life: new ones too
    OpenMM::LangevinMiddleIntegrator fresh(300.0, 1.0, 0.002);
    fresh.setRandomNumberSeed(i + 1);
    OpenMM::Context c(*system, fresh, OpenMM::Platform::getPlatformByName("CPU"), cpu_props());
    set_start(c, p, i + 1);
  }
  return {reinit, since(t) / n};
}

// --campaign: (a), (d), (a) again. The raw runs bracket the campaign so that the kernel's drift
// on a shared machine is visible; the campaign's own integration ÷ walker-phase wall isolates
// what Trails adds around step() at whatever speed the kernel ran.
int campaign_table(const om::PreparedSystem& p, int walkers, int steps, int stride) {
  const Split a1 = run_raw(p, walkers, steps);
  const CampaignSplit d = run_campaign_iteration(walkers, steps, stride);
  const Split a2 = run_raw(p, walkers, steps);
  const double total_steps = double(walkers) * steps;
  const double raw = 0.5 * (a1.total + a2.total);
  fmt::print("\n| variant | wall s | steps/s | vs raw (mean of both) |\n|---|---|---|---|\n");
  fmt::print("| (a) raw OpenMM Context, before | {:.2f} | {:.0f} | {:.3f} |\n", a1.total,
             total_steps / a1.total, raw / a1.total);
  fmt::print("| (d) Trails campaign, walker phase | {:.2f} | {:.0f} | {:.3f} |\n", d.runner,
             total_steps / d.runner, raw / d.runner);
  fmt::print("| (a) raw OpenMM Context, after | {:.2f} | {:.0f} | {:.3f} |\n", a2.total,
             total_steps / a2.total, raw / a2.total);
  fmt::print(
      "\ncampaign: whole run {:.2f} s (set-up, preparation and commit included), walker "
      "phase {:.2f} s, of which start-up (Context creation / re-arm) {:.3f} s and "
      "integration {:.2f} s\n",
      d.wall, d.runner, d.startup, d.integrate);
  fmt::print("campaign integration / walker-phase wall: {:.4f}\n", d.integrate / d.runner);
  fmt::print("(d)/(a) throughput: {:.3f} (vs the mean raw run), {:.3f} .. {:.3f} (vs each)\n",
             raw / d.runner, a1.total / d.runner, a2.total / d.runner);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const bool campaign = argc > 1 && std::string(argv[1]) == "--campaign";
  if (campaign) {
    --argc;
    ++argv;
  }
  const std::filesystem::path dir = argc > 1 ? argv[1]
                                             : std::filesystem::path(TRAILS_SOURCE_DIR) /
                                                   "examples/alanine-dipeptide/solvated/prepared";
  const int walkers = argc > 2 ? std::atoi(argv[2]) : 8;
  const int steps = argc > 3 ? std::atoi(argv[3]) : 5000;
  const int stride = argc > 4 ? std::atoi(argv[4]) : 100;
  if (!std::getenv("OPENMM_CPU_THREADS")) setenv("OPENMM_CPU_THREADS", "1", 1);
  om::load_openmm_plugins();
  const om::PreparedSystem p = om::load_prepared_system(dir);
  fmt::print(
      "system {} ({} atoms{}), CPU platform, {} thread(s), {} walkers x {} steps, stride {}\n",
      dir.string(), p.n_atoms, p.box.empty() ? ", vacuum" : ", periodic",
      std::getenv("OPENMM_CPU_THREADS"), walkers, steps, stride);

  if (campaign) return campaign_table(p, walkers, steps, stride);

  trails::config::OpenMMEngineConfig c;
  c.platform_name = "CPU";
  const om::OpenMMEngine engine(c, p);
  std::vector<eng::SegmentTask> tasks(static_cast<std::size_t>(walkers));
  for (int w = 0; w < walkers; ++w) {
    tasks[w].walker = w;
    tasks[w].start = engine.default_start();
    tasks[w].steps = steps;
    tasks[w].stride = stride;
    tasks[w].seed = 100 + static_cast<std::uint64_t>(w);
  }

  const auto [reinit, fresh] = reseed_costs(p, 5);
  const Split a = run_raw(p, walkers, steps);
  const Split b = run_trails(engine, tasks);
  const Split cc = run_trails_md(p, walkers, steps, stride);
  // The re-arm contract on this system too: the last walker, re-armed vs a fresh instance.
  const auto warm_instance = engine.make_instance();
  (void)warm_instance->run(tasks.front());
  const eng::SegmentResult warm = warm_instance->run(tasks.back());
  const eng::SegmentResult fresh_r = engine.make_instance()->run(tasks.back());
  const bool bitwise = warm.ok() && fresh_r.ok() && warm.frames == fresh_r.frames &&
                       warm.final_state.velocities == fresh_r.final_state.velocities;

  const double total_steps = double(walkers) * steps;
  fmt::print(
      "\n| variant | wall s | steps/s | vs raw | Context creation s | re-arm s/walker | "
      "integration s | frame extraction s |\n|---|---|---|---|---|---|---|---|\n");
  const auto row = [&](const char* name, const Split& s, double create, double rearm) {
    fmt::print("| {} | {:.2f} | {:.0f} | {:.3f} | {:.4f} | {} | {:.2f} | {:.4f} |\n", name, s.total,
               total_steps / s.total, a.total / s.total, create,
               rearm < 0 ? std::string("-") : fmt::format("{:.4f}", rearm), s.integrate, s.extract);
  };
  row("(a) raw OpenMM Context", a, 0.0, -1);
  row("(b) Trails warm instance", b, b.create, walkers > 1 ? b.rearm / (walkers - 1) : 0.0);
  row("(c) Trails-MD pattern", cc, cc.create, -1);
  fmt::print("\n(b)/(a) throughput = {:.3f}   (b)/(c) throughput = {:.3f}\n", a.total / b.total,
             cc.total / b.total);
  // On a shared machine the integration kernels' speed drifts more between variants than the
  // overhead is large; the fraction of wall time spent integrating isolates the overhead.
  fmt::print("integration / wall: (b) {:.4f}  (c) {:.4f}\n", b.integrate / b.total,
             cc.integrate / cc.total);
  fmt::print("re-armed walker bitwise equal to a fresh Context: {}\n", bitwise ? "yes" : "NO");
  fmt::print("re-seed cost: Context::reinitialize {:.2f} ms, new Context {:.2f} ms\n", reinit * 1e3,
             fresh * 1e3);
  fmt::print(
      "per walker (b): re-arm {:.2f} ms, integration {:.3f} s, extraction {:.3f} ms; (c): "
      "Context creation {:.2f} ms, extraction+write {:.3f} ms\n",
      (walkers > 1 ? b.rearm / (walkers - 1) : 0.0) * 1e3, b.integrate / walkers,
      b.extract / walkers * 1e3, cc.create / walkers * 1e3, cc.extract / walkers * 1e3);
  return 0;
}
