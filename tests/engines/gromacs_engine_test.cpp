// The GROMACS engine (docs/engines.md, "GROMACS") on Trails-MD's AlaD inputs (start.gro,
// topol.top with #include "amber99sb.ff/..."): the MDP template, one grompp per campaign, the
// per-walker run input equal to grompp's own for the same state and seed, fresh velocities, a
// failing mdrun as a failed walker with its log kept, the configuration keys, a walker with real
// MD. gmx is tests/scripts/gmx-for-tests (engine.gromacs_executable): native, or mdrun under
// qemu-x86_64 where the CPU lacks rdtscp, which Debian's mdrun refuses; only where neither can run
// is the real-MD test skipped, saying why.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "support/files.h"
#include "trails/config/campaign_config.h"
#include "trails/config/load.h"
#include "trails/core/error.h"
#include "trails/core/subprocess.h"
#include "trails/engines/gromacs/gromacs_engine.h"
#include "trails/engines/gromacs/md_log.h"
#include "trails/engines/gromacs/mdp.h"
#include "trails/engines/gromacs/mdrun_command.h"
#include "trails/engines/gromacs/prepared_run.h"
#include "trails/engines/gromacs/tpr_patch.h"
#include "trails/engines/gromacs/velocities.h"
#include "trails/engines/registry.h"
#include "trails/trajio/trr.h"

namespace trails::engines::gromacs {
namespace {

namespace fs = std::filesystem;
const fs::path kAlad = fs::path(TRAILS_TEST_DATA) / "trails-md-examples/AlaD";
const std::string kGmx = std::string(TRAILS_SOURCE_DIR) + "/tests/scripts/gmx-for-tests";

using test_support::read_text;

fs::path test_dir(const std::string& name) { return test_support::fresh_dir(name); }

config::GromacsSpec alad_spec() {
  config::GromacsSpec s;
  s.conf_file = kAlad / "start.gro";
  s.top_file = kAlad / "topol.top";
  s.include_dir = "/usr/share/gromacs/top";
  s.params.executable = kGmx;
  s.params.mdrun_ntomp = 1;
  s.params.mdrun_pin = "off";
  s.params.mdrun_extra_args = {"-reprod"};
  s.steps = 10;
  s.stride = 5;
  return s;
}

// One preparation shared by the tests (grompp on 1021 atoms: about a second).
class GromacsAlad : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    run_dir_ = new fs::path(test_dir("campaign"));
    prepared_ = new PreparedRun(prepare_gromacs_run(alad_spec(), *run_dir_));
  }
  static void TearDownTestSuite() {
    fs::remove_all(*run_dir_);
    delete prepared_;
    delete run_dir_;
  }
  static fs::path* run_dir_;
  static PreparedRun* prepared_;
};
fs::path* GromacsAlad::run_dir_ = nullptr;
PreparedRun* GromacsAlad::prepared_ = nullptr;

TEST(GromacsMdp, TemplatePlaceholdersAndTrailsSettings) {
  const fs::path dir = test_dir("mdp");
  std::ofstream(dir / "t.mdp") << "nsteps = {steps}\ndt = {dt}\nref_t = {temp}\n"
                                  "nstxout_compressed = {stride}\ngen_vel = {gen_vel}\n"
                                  "pcoupl = {pcoupl} ; {{literal}}\n";
  config::GromacsSpec s = alad_spec();
  s.mdp_template = dir / "t.mdp";
  s.temperature = 300;
  const std::string mdp = with_trails_settings(render_mdp(s));
  EXPECT_NE(mdp.find("nsteps = 10\ndt = 0.002\nref_t = 300.0\n"), std::string::npos) << mdp;
  EXPECT_NE(mdp.find("; set by Trails: nstxout_compressed = 5"), std::string::npos) << mdp;
  EXPECT_NE(mdp.find("; set by Trails: gen_vel = yes"), std::string::npos) << mdp;
  EXPECT_NE(mdp.find("pcoupl = no ; {literal}"), std::string::npos) << mdp;
  EXPECT_NE(mdp.find("gen-vel = no\ncontinuation = no\n"), std::string::npos) << mdp;
  std::ofstream(dir / "bad.mdp") << "nsteps = {steps}\nref_t = {temperature}\n";
  s.mdp_template = dir / "bad.mdp";
  try {
    (void)render_mdp(s);
    FAIL() << "expected ConfigError";
  } catch (const core::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.mdp:2: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("{temperature}"), std::string::npos) << e.what();
  }
}

TEST_F(GromacsAlad, PreparedOnceAndReusedByDigest) {
  const PreparedRun& p = *prepared_;
  EXPECT_EQ(p.layout.n_atoms, 1021);
  ASSERT_EQ(p.masses.size(), 1021u);
  EXPECT_DOUBLE_EQ(p.masses[0], 1.008);  // ACE HH31
  EXPECT_DOUBLE_EQ(p.masses[1], 12.01);  // ACE CH3
  EXPECT_DOUBLE_EQ(p.masses[22], 16.0);  // first water oxygen
  EXPECT_DOUBLE_EQ(p.box[0], 2.3);
  EXPECT_TRUE(fs::exists(p.topology_pdb));
  const auto stamp = fs::last_write_time(p.tpr);
  const PreparedRun again = prepare_gromacs_run(alad_spec(), *run_dir_);
  EXPECT_EQ(again.dir, p.dir);
  EXPECT_EQ(fs::last_write_time(again.tpr), stamp);  // no second grompp
}

// The walker's run input, patched, against grompp run on the same state, seed and stride: the
// same size, the same `gmx dump`, byte-equal fields, and no other difference than the few bytes
// grompp leaves different on every call.
TEST_F(GromacsAlad, PatchedRunInputEqualsGromppsOwn) {
  const PreparedRun& p = *prepared_;
  const fs::path dir = test_dir("patch");
  std::vector<double> x = p.positions;
  for (std::size_t i = 0; i < x.size(); ++i) x[i] += 0.01 * std::sin(static_cast<double>(i));
  const std::vector<double> v = maxwell_boltzmann(p.masses, 300.0, 99);
  WalkerRunInput in{&x, &v, {}, ld_seed_of(0xFEDCBA9876543210ULL), 10};
  for (int i = 0; i < 9; ++i) in.box[i] = p.box[i] * 1.01;
  const std::string patched = patch_tpr(read_text(p.tpr), p.layout, in);
  std::ofstream(dir / "patched.tpr", std::ios::binary) << patched;

  trajio::TrrFrame f;
  f.positions = x;
  f.velocities = v;
  structure::Box box{};
  std::copy(in.box.begin(), in.box.end(), box.begin());
  f.box = box;
  trajio::write_trr(dir / "state.trr", 1021, {f});
  std::string mdp = read_text(p.dir / "grompp.mdp");
  const auto swap = [&](std::int64_t from, std::int64_t to) {
    const std::string a = std::to_string(from);
    mdp.replace(mdp.find(a), a.size(), std::to_string(to));
  };
  swap(kNstxoutSentinel, 10);
  swap(kNstvoutSentinel, 10);
  swap(kLdSeedSentinel, in.ld_seed);
  std::ofstream(dir / "ref.mdp") << mdp;
  const config::GromacsSpec s = alad_spec();
  core::ProcessOptions o;
  o.working_directory = dir;
  o.set_env = gmx_environment(s);
  ASSERT_TRUE(core::run_process(
                  {"gmx", "grompp", "-f", "ref.mdp", "-c", s.conf_file.string(), "-t", "state.trr",
                   "-p", s.top_file.string(), "-o", "ref.tpr", "-po", "ref-out.mdp"},
                  o)
                  .status.ok());
  const std::string ref = read_text(dir / "ref.tpr");
  ASSERT_EQ(ref.size(), patched.size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) differing += ref[i] != patched[i] ? 1 : 0;
  EXPECT_LE(differing, 8u);
  const std::size_t n3 = 1021 * 3 * 4;
  for (const auto& [at, len] : {std::pair{p.layout.box, std::size_t{36}},
                                {p.layout.x, n3},
                                {p.layout.v, n3},
                                {p.layout.ld_seed, std::size_t{8}},
                                {p.layout.nstxout, std::size_t{4}},
                                {p.layout.nstvout, std::size_t{4}}}) {
    EXPECT_EQ(ref.compare(at, len, patched, at, len), 0) << "field at byte " << at;
  }
  const auto dump = [&](const char* name) {
    const std::string out = core::run_process({"gmx", "dump", "-s", name}, o).stdout_text;
    return out.substr(out.find('\n'));  // the first line names the file
  };
  EXPECT_EQ(dump("patched.tpr"), dump("ref.tpr"));
}

TEST(GromacsVelocities, MaxwellBoltzmannFromTheSeedWithoutDrift) {
  std::vector<double> masses(3000);
  for (std::size_t i = 0; i < masses.size(); ++i) masses[i] = i % 3 == 0 ? 16.0 : 1.008;
  const auto v = maxwell_boltzmann(masses, 300.0, 5);
  EXPECT_EQ(v, maxwell_boltzmann(masses, 300.0, 5));
  EXPECT_NE(v, maxwell_boltzmann(masses, 300.0, 6));
  double p[3] = {0, 0, 0}, twice_ke = 0;
  for (std::size_t i = 0; i < masses.size(); ++i) {
    for (int d = 0; d < 3; ++d) {
      p[d] += masses[i] * v[3 * i + d];
      twice_ke += masses[i] * v[3 * i + d] * v[3 * i + d];
    }
  }
  for (double c : p) EXPECT_NEAR(c, 0.0, 1e-9);
  const double t = twice_ke / (3.0 * masses.size() * 0.0083144626181532);
  EXPECT_NEAR(t, 300.0, 15.0);  // 9000 degrees of freedom: a 5 % band is > 3 sigma
}

SegmentTask walker_task(std::uint64_t seed) {
  SegmentTask t;
  t.iteration = 3;
  t.walker = 5;
  t.steps = 10;
  t.stride = 5;
  t.seed = seed;
  return t;
}

TEST_F(GromacsAlad, FailingMdrunIsAFailedWalkerWithItsLogKept) {
  config::GromacsSpec s = alad_spec();
  s.files.scratch = test_dir("failing");
  s.params.mdrun_extra_args = {"-no-such-mdrun-option"};
  const GromacsEngine engine(s, *prepared_);
  const SegmentResult r = engine.make_instance()->run(walker_task(1));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("walker 5 of iteration 3: gmx mdrun exited with status"),
            std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("no-such-mdrun-option"), std::string::npos) << r.error;
  // The one rule of the external engines: without keep_walker_files a failed walker's
  // directory stays in scratch, and the error says where.
  ASSERT_EQ(std::distance(fs::directory_iterator(*s.files.scratch), fs::directory_iterator()), 1);
  const fs::path dir = *fs::directory_iterator(*s.files.scratch);
  EXPECT_NE(r.error.find("(the walker's files are kept in " + dir.string() + ")"),
            std::string::npos)
      << r.error;
  EXPECT_TRUE(fs::exists(dir / "walker.tpr")) << dir;
  const SegmentResult odd = engine.make_instance()->run([] {
    SegmentTask t = walker_task(1);
    t.steps = 12;
    return t;
  }());
  EXPECT_NE(odd.error.find("not a positive multiple of stride"), std::string::npos) << odd.error;
}

// Regression: mdrun prints its citations again at exit, so the raw 30-line tail of a log whose
// run stopped early was references only. The tail keeps the lines above them.
TEST(GromacsMdLog, CitationBlocksAreDropped) {
  const std::string cite =
      "++++ PLEASE READ AND CITE THE FOLLOWING REFERENCE ++++\nA. Author\nJ. 1 (2000)\n"
      "-------- -------- --- Thank You --- -------- --------\n\n";
  const std::string log = "header\n" + cite + "Hardware detected:\n\n  CPU info:\n" + cite + cite;
  EXPECT_EQ(without_citations(log), "header\nHardware detected:\n\n  CPU info:\n");
  EXPECT_EQ(without_citations("step 1\nstep 2\n\n"), "step 1\nstep 2\n");
}

// A walker whose mdrun starts, writes md.log and then refuses the run (-nb gpu on Debian's
// CPU-only build; the fatal error goes to stderr): the error has both, and no citations.
TEST_F(GromacsAlad, RefusedMdrunReportsItsLogAndItsFatalError) {
  config::GromacsSpec s = alad_spec();
  s.files.scratch = test_dir("refused");
  s.params.mdrun_nb = "gpu";
  const SegmentResult r = GromacsEngine(s, *prepared_).make_instance()->run(walker_task(1));
  ASSERT_FALSE(r.ok());
  if (r.error.find("compiled to use the rdtscp") != std::string::npos)
    GTEST_SKIP() << r.error.substr(0, 300);
  EXPECT_NE(r.error.find("; the end of md.log:"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("Hardware detected"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("built without GPU support"), std::string::npos) << r.error;
  EXPECT_EQ(r.error.find("PLEASE READ AND CITE"), std::string::npos) << r.error;
}

// Real MD: 10 steps of 1021 atoms with -reprod on one thread.
TEST_F(GromacsAlad, WalkerFramesFinalStateAndBitwiseRepeat) {
  config::GromacsSpec s = alad_spec();
  s.files.scratch = test_dir("walker");
  const GromacsEngine engine(s, *prepared_);
  auto instance = engine.make_instance();
  const SegmentResult a = instance->run(walker_task(11));
  if (!a.ok() && a.error.find("compiled to use the rdtscp") != std::string::npos) {
    GTEST_SKIP() << "this host's gmx mdrun cannot run (Debian's GROMACS needs the rdtscp CPU "
                    "instruction): "
                 << a.error.substr(0, 300);
  }
  ASSERT_TRUE(a.ok()) << a.error;
  EXPECT_EQ(a.n_frames, 2);
  ASSERT_EQ(a.frames.size(), 2u * 1021 * 3);
  EXPECT_EQ(a.frame_boxes.size(), 18u);
  EXPECT_TRUE(std::equal(a.final_state.positions.begin(), a.final_state.positions.end(),
                         a.frames.begin() + 1021 * 3));
  EXPECT_EQ(a.final_state.velocities.size(), 1021u * 3);
  EXPECT_NE(a.frames[0], prepared_->positions[0]);
  const SegmentResult again = instance->run(walker_task(11));  // warm instance, same walker
  const SegmentResult fresh = engine.make_instance()->run(walker_task(11));
  EXPECT_EQ(again.frames, a.frames);
  EXPECT_EQ(fresh.frames, a.frames);
  EXPECT_EQ(fresh.final_state.velocities, a.final_state.velocities);
  EXPECT_NE(engine.make_instance()->run(walker_task(12)).frames, a.frames);
  SegmentTask cont = walker_task(11);  // continued velocities are used, not redrawn
  cont.start = a.final_state;
  const SegmentResult next = instance->run(cont);
  ASSERT_TRUE(next.ok()) << next.error;
  EXPECT_NE(next.frames, a.frames);
  EXPECT_TRUE(fs::is_empty(*s.files.scratch));  // no walker files left behind
}

// $TRAILS_MD_TIMEOUT reaches mdrun: a limit shorter than mdrun's start-up fails the walker.
TEST_F(GromacsAlad, MdrunPastTheTimeLimitIsAFailedWalker) {
  config::GromacsSpec s = alad_spec();
  s.files.scratch = test_dir("timeout");
  s.timeout_s = 0.05;
  const SegmentResult r = GromacsEngine(s, *prepared_).make_instance()->run(walker_task(1));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("gmx mdrun timed out after"), std::string::npos) << r.error;
}

TEST(GromacsMdrunCommand, PresetsPinOffsetPerSlotAndGpuId) {
  config::GromacsEngineConfig c;
  c.mdrun_ntmpi = 1;
  c.mdrun_ntomp = 2;
  c.mdrun_pin = "on";
  c.mdrun_nb = c.mdrun_pme = c.mdrun_update = c.mdrun_bonded = "gpu";
  c.mdrun_extra_args = {"-reprod"};
  const auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& a : v) s += a + " ";
    return s;
  };
  const std::string slot3 = join(mdrun_command(c, Slot{3, 1, 1}, 500));
  EXPECT_NE(slot3.find("-nsteps 500 -ntmpi 1 -ntomp 2 -nb gpu -pme gpu -update gpu -bonded gpu "
                       "-gpu_id 1 -pin on -pinoffset 6 -pinstride 1 -reprod "),
            std::string::npos)
      << slot3;
  EXPECT_TRUE(uses_gpu(c));
  c.mdrun_nb = c.mdrun_pme = c.mdrun_update = c.mdrun_bonded = std::nullopt;
  c.mdrun_pin = "off";
  const std::string cpu = join(mdrun_command(c, Slot{3, 1, 1}, 500));
  EXPECT_EQ(cpu.find("-gpu_id"), std::string::npos) << cpu;
  EXPECT_EQ(cpu.find("-pinoffset"), std::string::npos) << cpu;
  EXPECT_FALSE(uses_gpu(c));
}

TEST(GromacsConfig, KeysBuildTheSpecAndSurviveTheWire) {
  const fs::path dir = test_dir("config");
  std::ofstream(dir / "c.yaml") << "system:\n  conf_file: " << (kAlad / "start.gro").string()
                                << "\n  top_file: " << (kAlad / "topol.top").string()
                                << "\nengine:\n  md_engine: gromacs\n"
                                   "  gromacs_include_dir: /usr/share/gromacs/top\n"
                                   "  gromacs_mdrun_ntomp: 2\n  gromacs_mdrun_pin: 'on'\n"
                                   "  gromacs_mdrun_extra_args: [-reprod]\n"
                                   "  gromacs_grompp_maxwarn: 1\n  keep_walker_files: true\n"
                                   "spawning:\n  walker: 2\n  step: 40\n  stride: 10\n"
                                   "n_bins: [2, 2]\nmin_values: [0, 0]\nmax_values: [1, 1]\n";
  const config::CampaignConfig c = config::load_campaign_config(dir / "c.yaml");
  const auto spec = std::get<config::GromacsSpec>(c.engine_spec());
  EXPECT_EQ(spec.params.mdrun_ntomp, 2);
  EXPECT_EQ(spec.params.mdrun_pin, "on");
  EXPECT_EQ(spec.params.grompp_maxwarn, 1);
  EXPECT_TRUE(spec.files.keep_walker_files);
  EXPECT_EQ(spec.steps, 40);
  EXPECT_FALSE(spec.timeout_s);
  const auto back =
      std::get<config::GromacsSpec>(config::engine_spec_from_json(config::engine_spec_json(spec)));
  EXPECT_EQ(config::engine_spec_json(back), config::engine_spec_json(spec));
  EXPECT_TRUE(back.files.keep_walker_files);

  // TRAILS_MD_TIMEOUT (docs/engines.md, "Subprocess time limit"): seconds; 0 is no limit; anything
  // else is refused.
  struct Env {
    explicit Env(const char* v) { ::setenv("TRAILS_MD_TIMEOUT", v, 1); }
    ~Env() { ::unsetenv("TRAILS_MD_TIMEOUT"); }
  };
  {
    const Env env("90.5");
    const auto timed = std::get<config::GromacsSpec>(c.engine_spec());
    ASSERT_TRUE(timed.timeout_s);
    EXPECT_EQ(*timed.timeout_s, 90.5);
    const auto wire = std::get<config::GromacsSpec>(
        config::engine_spec_from_json(config::engine_spec_json(timed)));
    EXPECT_EQ(wire.timeout_s, timed.timeout_s);
  }
  {
    const Env env("0");
    EXPECT_FALSE(std::get<config::GromacsSpec>(c.engine_spec()).timeout_s);
  }
  for (const char* bad : {"ten", "-5", "inf", "5s"}) {
    const Env env(bad);
    try {
      (void)c.engine_spec();
      ADD_FAILURE() << bad << ": expected ConfigError";
    } catch (const core::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("TRAILS_MD_TIMEOUT=") + bad),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace trails::engines::gromacs
