// mdtraj and MDAnalysis (under /usr/bin/python3) must read what Trails writes, and Trails must
// read what they write: same frame count, coordinates and unit cells. See crosscheck.py.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "test_support.h"
#include "trails/trajio/box_geometry.h"
#include "trails/trajio/trajectory.h"

namespace trails::trajio {
namespace {

const std::string kScript = std::string(TRAILS_SOURCE_DIR) + "/tests/trajio/crosscheck.py";

struct PythonRun {
  int status = -1;
  std::string output;
};

PythonRun python(const std::string& args) {
  const std::string cmd = "/usr/bin/python3 " + kScript + " " + args + " 2>&1";
  PythonRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p) != nullptr) r.output += buf;
  r.status = pclose(p);
  return r;
}

void write_reference(const std::filesystem::path& path,
                     const std::vector<TrajectoryFrame>& frames) {
  std::ofstream out(path);
  out << std::setprecision(17) << frames[0].positions_nm.size() / 3 << " " << frames.size() << "\n";
  for (const auto& f : frames) {
    LengthsAngles c{0, 0, 0, 0, 0, 0};
    if (f.box) c = box_to_lengths_angles(*f.box);
    out << f.time_ps << " " << f.step << " " << (f.box ? 1 : 0) << " " << c.a_nm << " " << c.b_nm
        << " " << c.c_nm << " " << c.alpha_deg << " " << c.beta_deg << " " << c.gamma_deg << "\n";
    for (std::size_t i = 0; i < f.positions_nm.size(); i += 3) {
      out << f.positions_nm[i] << " " << f.positions_nm[i + 1] << " " << f.positions_nm[i + 2]
          << "\n";
    }
  }
}

std::vector<TrajectoryFrame> read_reference(const std::filesystem::path& path, int& n_atoms) {
  std::ifstream in(path);
  std::size_t n_frames = 0;
  in >> n_atoms >> n_frames;
  std::vector<TrajectoryFrame> frames(n_frames);
  for (auto& f : frames) {
    int has_box = 0;
    LengthsAngles c;
    in >> f.time_ps >> f.step >> has_box >> c.a_nm >> c.b_nm >> c.c_nm >> c.alpha_deg >>
        c.beta_deg >> c.gamma_deg;
    if (has_box) f.box = box_from_lengths_angles(c);
    f.positions_nm.resize(3 * static_cast<std::size_t>(n_atoms));
    for (double& x : f.positions_nm) in >> x;
  }
  EXPECT_TRUE(in) << "bad reference " << path;
  return frames;
}

class CrossCheck : public ::testing::TestWithParam<const char*> {};

TEST_P(CrossCheck, ToolsReadWhatTrailsWrites) {
  const auto dir = test::fresh_dir();
  const auto path = dir / (std::string("trails.") + GetParam());
  const auto frames = test::make_frames(31, 4, true);
  test::write_all(path, frames);
  write_reference(dir / "trails.ref", frames);
  const PythonRun r = python("check " + path.string() + " " + (dir / "trails.ref").string());
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST_P(CrossCheck, TrailsReadsWhatToolsWrite) {
  // Each parameter makes its own files: ctest runs the two instances in parallel processes.
  const auto dir = test::fresh_dir();
  const PythonRun made = python("make " + dir.string());
  ASSERT_EQ(made.status, 0) << made.output;
  const std::string ext = GetParam();
  const double tol = ext == "xtc" ? 0.5e-3 + 1e-6 : 1e-6;
  for (const std::string tool : {"mdtraj", "mda"}) {
    SCOPED_TRACE(tool + "." + ext);
    int n_atoms = 0;
    const auto want = read_reference(dir / (tool + "." + ext + ".ref"), n_atoms);
    const Trajectory got = read_trajectory(dir / (tool + "." + ext), n_atoms);
    ASSERT_EQ(got.frames.size(), want.size());
    ASSERT_FALSE(want.empty());
    for (std::size_t k = 0; k < want.size(); ++k) {
      for (std::size_t i = 0; i < want[k].positions_nm.size(); ++i) {
        ASSERT_NEAR(got.frames[k].positions_nm[i], want[k].positions_nm[i], tol) << k << " " << i;
      }
      ASSERT_TRUE(got.frames[k].box.has_value());
      const LengthsAngles g = box_to_lengths_angles(*got.frames[k].box);
      const LengthsAngles w = box_to_lengths_angles(*want[k].box);
      EXPECT_NEAR(g.a_nm, w.a_nm, 1e-5);
      EXPECT_NEAR(g.b_nm, w.b_nm, 1e-5);
      EXPECT_NEAR(g.c_nm, w.c_nm, 1e-5);
      EXPECT_NEAR(g.alpha_deg, w.alpha_deg, 1e-3);
      EXPECT_NEAR(g.beta_deg, w.beta_deg, 1e-3);
      EXPECT_NEAR(g.gamma_deg, w.gamma_deg, 1e-3);
      if (ext == "xtc") {  // DCD has no per-frame time; the tools' headers differ in meaning
        EXPECT_EQ(got.frames[k].step, want[k].step);
        EXPECT_NEAR(got.frames[k].time_ps, want[k].time_ps, 1e-5);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, CrossCheck, ::testing::Values("xtc", "dcd"));

}  // namespace
}  // namespace trails::trajio
