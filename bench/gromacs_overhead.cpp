// bench/gromacs_overhead: per-walker start-up and iteration wall time of Trails' GROMACS engine
// against Trails-MD's pattern and against one mdrun doing all the steps. Trails-MD's AlaD inputs
// (tests/data/trails-md-examples/AlaD: 1021 atoms, PME), W walkers x S steps, TRR every `stride`:
//   (a) trails:    start-up = patch the campaign's run input + write it (tpr_patch.h); walker =
//                  GromacsInstance::run (patch, mdrun, TRR read, scratch removed)
//   (b) trails-md: start-up = write the start state + `gmx grompp -t` for this walker (the same
//                  MDP and topology); walker = that grompp + a cold `gmx mdrun` of the same steps
//   (c) one mdrun: W*S steps in one process (the floor for the MD itself)
// Files: what each pattern leaves per iteration (Trails: the iteration's one shard; Trails-MD:
// one XTC per walker) and creates on the way. GMX is the gmx program all three patterns run
// (default gmx; on a CPU without rdtscp, where Debian's mdrun refuses to start, give
// tests/scripts/gmx-for-tests: mdrun then runs under qemu-x86_64 in every pattern, grompp
// natively). Where mdrun cannot run at all only the start-up columns are measured, and the table
// says so.
// Usage: bench_gromacs_overhead [WALKERS] [STEPS] [STRIDE] [GMX]   (default 8 100 10 gmx; -ntomp 1)
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "trails/core/subprocess.h"
#include "trails/engines/gromacs/gromacs_engine.h"
#include "trails/engines/gromacs/mdp.h"
#include "trails/engines/gromacs/prepared_run.h"
#include "trails/engines/gromacs/tpr_patch.h"
#include "trails/engines/gromacs/velocities.h"
#include "trails/trajio/trr.h"

namespace fs = std::filesystem;
namespace g = trails::engines::gromacs;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string with_values(std::string mdp, int stride, std::int64_t seed) {
  const auto swap = [&](std::int64_t from, std::int64_t to) {
    const std::string a = std::to_string(from);
    mdp.replace(mdp.find(a), a.size(), std::to_string(to));
  };
  swap(g::kNstxoutSentinel, stride);
  swap(g::kNstvoutSentinel, stride);
  swap(g::kLdSeedSentinel, seed);
  return mdp;
}

trails::core::ProcessResult gmx(const trails::config::GromacsSpec& spec,
                                const std::vector<std::string>& args, const fs::path& cwd) {
  std::vector<std::string> argv = {spec.params.executable};
  argv.insert(argv.end(), args.begin(), args.end());
  trails::core::ProcessOptions o;
  o.working_directory = cwd;
  o.set_env = g::gmx_environment(spec);
  return trails::core::run_process(argv, o);
}

}  // namespace

int main(int argc, char** argv) {
  const int walkers = argc > 1 ? std::stoi(argv[1]) : 8;
  const int steps = argc > 2 ? std::stoi(argv[2]) : 100;
  const int stride = argc > 3 ? std::stoi(argv[3]) : 10;
  const std::string gmx_program = argc > 4 ? argv[4] : "gmx";
  const fs::path alad = fs::path(TRAILS_SOURCE_DIR) / "tests/data/trails-md-examples/AlaD";
  const fs::path work =
      fs::temp_directory_path() / ("trails-gmx-bench-" + std::to_string(getpid()));
  fs::create_directories(work / "scratch");
  trails::config::GromacsSpec spec;
  spec.conf_file = alad / "start.gro";
  spec.top_file = alad / "topol.top";
  spec.include_dir = "/usr/share/gromacs/top";
  spec.params.executable = gmx_program;
  spec.params.mdrun_ntomp = 1;
  spec.params.mdrun_pin = "off";
  spec.files.scratch = work / "scratch";
  spec.steps = steps;
  spec.stride = stride;

  auto t0 = Clock::now();
  const g::PreparedRun prepared = g::prepare_gromacs_run(spec, work / "run");
  const double campaign_grompp = since(t0);
  const std::string base = slurp(prepared.tpr);
  const std::string mdp = slurp(prepared.dir / "grompp.mdp");

  double trails_startup = 0, md_startup = 0;
  for (int w = 0; w < walkers; ++w) {
    t0 = Clock::now();  // what GromacsInstance does before mdrun: draw, patch, write
    const auto v = g::maxwell_boltzmann(prepared.masses, 300.0, 1000 + w);
    std::array<double, 9> box{};
    std::copy(prepared.box.begin(), prepared.box.end(), box.begin());
    g::WalkerRunInput in{&prepared.positions, &v, box, g::ld_seed_of(1000 + w), stride};
    std::ofstream(work / "walker.tpr", std::ios::binary) << g::patch_tpr(base, prepared.layout, in);
    trails_startup += since(t0);
    const fs::path d = work / fmt::format("md-{}", w);
    fs::create_directories(d);
    t0 = Clock::now();
    trails::trajio::TrrFrame f{0, 0.0, std::nullopt, prepared.positions, v, {}, false};
    trails::structure::Box b{};
    std::copy(box.begin(), box.end(), b.begin());
    f.box = b;
    trails::trajio::write_trr(d / "start.trr", prepared.layout.n_atoms, {f});
    std::ofstream(d / "md.mdp") << with_values(mdp, stride, 1000 + w);
    const auto r = gmx(spec,
                       {"grompp", "-f", "md.mdp", "-c", spec.conf_file.string(), "-t", "start.trr",
                        "-p", spec.top_file.string(), "-o", "run.tpr", "-po", "mdout.mdp"},
                       d);
    md_startup += since(t0);
    if (!r.status.ok()) {
      std::fprintf(stderr, "grompp failed: %s\n", r.stderr_tail.c_str());
      return 1;
    }
  }

  // Walker time: Trails' engine, then Trails-MD's cold mdrun per walker, then one long mdrun.
  const g::GromacsEngine engine(spec, prepared);
  auto instance = engine.make_instance();
  double trails_iter = 0;
  bool md_ok = true;
  std::string why;
  t0 = Clock::now();
  for (int w = 0; w < walkers && md_ok; ++w) {
    trails::engines::SegmentTask t;
    t.walker = w;
    t.steps = steps;
    t.stride = stride;
    t.seed = 1000 + static_cast<std::uint64_t>(w);
    const auto r = instance->run(t);
    if (!r.ok()) {
      md_ok = false;
      why = r.error.substr(0, 400);
    }
  }
  trails_iter = since(t0);
  double md_iter = 0, one_mdrun = 0;
  if (md_ok) {
    t0 = Clock::now();
    for (int w = 0; w < walkers; ++w) {
      const fs::path d = work / fmt::format("md-{}", w);
      (void)gmx(
          spec,
          {"mdrun", "-s", "run.tpr", "-x", "traj.xtc", "-ntmpi", "1", "-ntomp", "1", "-pin", "off"},
          d);
    }
    md_iter = since(t0) + md_startup;
    t0 = Clock::now();
    (void)gmx(spec,
              {"mdrun", "-s", "../md-0/run.tpr", "-nsteps", std::to_string(walkers * steps),
               "-ntmpi", "1", "-ntomp", "1", "-pin", "off"},
              work / "scratch");
    one_mdrun = since(t0);
  }

  std::printf("GROMACS overhead: AlaD 1021 atoms, %d walkers x %d steps, stride %d, 1 thread, %s\n",
              walkers, steps, stride, gmx_program.c_str());
  std::printf("campaign grompp (once)                 %8.3f s\n", campaign_grompp);
  std::printf("per-walker start-up  trails (patch)    %8.4f s\n", trails_startup / walkers);
  std::printf("per-walker start-up  trails-md (grompp) %7.4f s   ratio trails/trails-md %.4f\n",
              md_startup / walkers, trails_startup / md_startup);
  if (md_ok) {
    std::printf("iteration wall  trails                 %8.3f s\n", trails_iter);
    std::printf("iteration wall  trails-md              %8.3f s   ratio %.3f\n", md_iter,
                trails_iter / md_iter);
    std::printf("one mdrun, all steps                   %8.3f s   ratio %.3f\n", one_mdrun,
                trails_iter / one_mdrun);
  } else {
    std::printf("iteration wall: not measured, mdrun cannot run on this host:\n  %s\n",
                why.c_str());
  }
  std::printf(
      "files per iteration: trails 1 shard in the run dir (per walker 6 in scratch, "
      "removed); trails-md %d XTC kept + %d created and deleted\n",
      walkers, walkers * 9);
  fs::remove_all(work);
  return 0;
}
