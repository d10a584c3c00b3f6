// The Amber engine without Amber (pmemd/sander are not in Debian; docs/engines.md, "The Amber
// engine"): the rendered mdin and the command line against fixtures, the prmtop, inpcrd,
// NetCDF restart (bitwise round trip) and trajectory, and ASCII mdcrd readers on small files,
// and whole segments through tests/data/amber/fake_pmemd.py, a python3 + netCDF4 stand-in that
// speaks pmemd's command line and file formats (frames, final state, a failing run's mdout).
#include <gtest/gtest.h>
#include <netcdf.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "support/files.h"
#include "trails/core/error.h"
#include "trails/core/temp_dir.h"
#include "trails/engines/amber/amber_ascii.h"
#include "trails/engines/amber/amber_engine.h"
#include "trails/engines/amber/amber_netcdf.h"
#include "trails/engines/amber/mdin.h"

namespace trails::engines::amber {
namespace {

namespace fs = std::filesystem;
const fs::path kData = fs::path(TRAILS_TEST_DATA) / "amber";
const fs::path kArgon = fs::path(TRAILS_TEST_DATA) / "openmm" / "argon-amber";

using test_support::read_text;

MdinValues values(bool periodic, bool npt) {
  MdinValues v;
  v.steps = 500;
  v.dt = 0.002;
  v.temperature = 310.0;
  v.stride = 50;
  v.periodic = periodic;
  v.npt = npt;
  v.seed = 12345;
  return v;
}

TEST(AmberMdin, RendersTheTemplateAndControlsOutputFormatRestartAndSeed) {
  const std::string text = render_mdin(read_text(kData / "mdin.template"), values(true, true), "t");
  EXPECT_EQ(text, read_text(kData / "mdin.expected"));
}

TEST(AmberMdin, BuiltInVacuumMdin) {
  EXPECT_EQ(builtin_mdin(values(false, true)), read_text(kData / "builtin_vacuum.expected"));
  const std::string periodic = builtin_mdin(values(true, true));
  EXPECT_NE(periodic.find("ntb=2, ntp=1,\n  pres0=1, barostat=2"), std::string::npos) << periodic;
  EXPECT_NE(periodic.find("cut=9.0"), std::string::npos);
}

TEST(AmberMdin, AnUnknownFieldIsAnInputErrorNamingTheFile) {
  try {
    (void)render_mdin(" &cntrl\n nstlim={nsteps},\n /\n", values(true, false), "md.in");
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("md.in (engine.amber_input_file)"), std::string::npos)
        << e.what();
  }
}

TEST(AmberCommandLine, MatchesPmemdsConventions) {
  config::AmberSpec spec;
  spec.top_file = "/data/sys.prmtop";
  spec.extra_args = {"-AllowSmallBox"};
  spec.netcdf = false;
  EXPECT_EQ(amber_command_line(spec, "/usr/bin/sander"),
            (std::vector<std::string>{"/usr/bin/sander", "-O", "-i", "mdin", "-o", "mdout", "-p",
                                      "/data/sys.prmtop", "-c", "start.ncrst", "-r", "end.ncrst",
                                      "-x", "traj.mdcrd", "-inf", "mdinfo", "-AllowSmallBox"}));
  spec.extra_args.clear();
  spec.netcdf = true;
  const auto cuda = amber_command_line(spec, "/opt/amber/bin/pmemd.cuda");
  EXPECT_EQ(cuda[13], "traj.nc");
  EXPECT_EQ(cuda.back(), "-AllowSmallBox");
}

TEST(AmberCommandLine, AGpuBuildIsAProgramNamedCuda) {
  EXPECT_TRUE(runs_on_gpu("/opt/amber/bin/pmemd.cuda"));
  EXPECT_TRUE(runs_on_gpu("pmemd.cuda_SPFP.MPI"));
  EXPECT_FALSE(runs_on_gpu("/usr/bin/sander"));
  EXPECT_FALSE(runs_on_gpu("/opt/cuda/bin/pmemd"));  // the program's name, not its folder's
}

// The slot's device is a position in the CUDA_VISIBLE_DEVICES this process inherited (a
// scheduler's GPUs); the program, which reads its own CUDA_VISIBLE_DEVICES, gets that token.
TEST(AmberDevices, TheProgramGetsTheInheritedTokenOfTheSlotsDevice) {
  const char* inherited = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::optional<std::string> saved =
      inherited ? std::optional<std::string>(inherited) : std::nullopt;
  ::setenv("CUDA_VISIBLE_DEVICES", "5,7", 1);
  EXPECT_EQ(program_visible_devices(0), "5");
  EXPECT_EQ(program_visible_devices(1), "7");
  ::setenv("CUDA_VISIBLE_DEVICES", "GPU-a1b2,MIG-c3d4", 1);
  EXPECT_EQ(program_visible_devices(1), "MIG-c3d4");
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(program_visible_devices(1), "1");
  if (saved) ::setenv("CUDA_VISIBLE_DEVICES", saved->c_str(), 1);
}

TEST(AmberFiles, ReadsPrmtopAndInpcrd) {
  const Prmtop p = read_prmtop(kArgon / "argon2.prmtop");
  ASSERT_EQ(p.topology.n_atoms(), 2);
  EXPECT_FALSE(p.periodic);
  EXPECT_EQ(p.topology.atoms[1].name, "Ar");
  EXPECT_EQ(p.topology.atoms[1].resid, 2);
  EXPECT_DOUBLE_EQ(p.topology.atoms[0].mass, 39.948);
  const AmberState s = read_restart(kArgon / "argon2.inpcrd", 2);
  EXPECT_EQ(s.positions_nm, (std::vector<double>{0, 0, 0, 0.38, 0, 0}));
  EXPECT_TRUE(s.velocities.empty());
  EXPECT_FALSE(s.box.has_value());
  EXPECT_THROW(read_restart(kArgon / "argon2.inpcrd", 3), core::InputError);
}

TEST(AmberFiles, NetcdfRestartRoundTripsBitwise) {
  const core::TempDir tmp("trails-amber-test");
  AmberState s;
  s.positions_nm = {0.1234567890123, -1.5, 2.0, 3.25, 0.0, -0.000123};
  s.velocities = {0.5, -0.25, 1.0e-3, 2.0, -3.0, 0.125};
  s.box = structure::Box{3.0, 0, 0, 0, 3.5, 0, 0, 0, 4.0};
  s.time_ps = 12.5;
  write_netcdf_restart(tmp.path() / "r.ncrst", s);
  ASSERT_TRUE(is_netcdf(tmp.path() / "r.ncrst"));
  const AmberState back = read_restart(tmp.path() / "r.ncrst", 2);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_NEAR(back.positions_nm[i], s.positions_nm[i], 1e-15);
    EXPECT_NEAR(back.velocities[i], s.velocities[i], 1e-15);
  }
  ASSERT_TRUE(back.box.has_value());
  for (std::size_t i = 0; i < 9; ++i) EXPECT_NEAR((*back.box)[i], (*s.box)[i], 1e-12);
  EXPECT_EQ(back.time_ps, 12.5);
}

// A two-frame AMBER trajectory written with the NetCDF C library, as pmemd writes it.
TEST(AmberFiles, ReadsANetcdfTrajectory) {
  const core::TempDir tmp("trails-amber-test");
  const fs::path file = tmp.path() / "t.nc";
  int id = 0, frame = 0, spatial = 0, atom = 0, cell = 0, angular = 0, coords = 0, lengths = 0,
      angles = 0;
  ASSERT_EQ(nc_create(file.c_str(), NC_CLOBBER | NC_64BIT_OFFSET, &id), NC_NOERR);
  nc_put_att_text(id, NC_GLOBAL, "Conventions", 5, "AMBER");
  nc_def_dim(id, "frame", NC_UNLIMITED, &frame);
  nc_def_dim(id, "spatial", 3, &spatial);
  nc_def_dim(id, "atom", 2, &atom);
  nc_def_dim(id, "cell_spatial", 3, &cell);
  nc_def_dim(id, "cell_angular", 3, &angular);
  const int cdims[3] = {frame, atom, spatial};
  nc_def_var(id, "coordinates", NC_FLOAT, 3, cdims, &coords);
  const int ldims[2] = {frame, cell};
  const int adims[2] = {frame, angular};
  nc_def_var(id, "cell_lengths", NC_DOUBLE, 2, ldims, &lengths);
  nc_def_var(id, "cell_angles", NC_DOUBLE, 2, adims, &angles);
  nc_enddef(id);
  const float xyz[12] = {1, 2, 3, 4, 5, 6, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f};
  const double l[6] = {30, 31, 32, 30, 31, 32};
  const double g[6] = {90, 90, 90, 90, 90, 90};
  const std::size_t start[3] = {0, 0, 0}, count[3] = {2, 2, 3}, count2[2] = {2, 3};
  nc_put_vara_float(id, coords, start, count, xyz);
  nc_put_vara_double(id, lengths, start, count2, l);
  nc_put_vara_double(id, angles, start, count2, g);
  ASSERT_EQ(nc_close(id), NC_NOERR);
  const AmberFrames f = read_netcdf_trajectory(file, 2);
  ASSERT_EQ(f.n_frames, 2u);
  EXPECT_NEAR(f.positions_nm[6], 0.15, 1e-7);
  EXPECT_NEAR(f.positions_nm[11], 0.65, 1e-7);
  ASSERT_EQ(f.boxes.size(), 18u);
  EXPECT_DOUBLE_EQ(f.boxes[0], 3.0);
  EXPECT_DOUBLE_EQ(f.boxes[4], 3.1);
  EXPECT_DOUBLE_EQ(f.boxes[8], 3.2);
  EXPECT_THROW(read_netcdf_trajectory(file, 3), core::InputError);
}

// NetCDF classic headers whose counts the file cannot hold are refused before libnetcdf
// allocates them (engines/amber/netcdf_header.h): each is a whole 64-bit-offset file of a few
// dozen bytes, big-endian as the format is.
TEST(AmberFiles, ANetcdfHeaderDeclaringMoreThanTheFileHoldsIsAnInputErrorNamingIt) {
  const core::TempDir tmp("trails-amber-test");
  const auto be32 = [](std::string& out, std::uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(v >> shift));
  };
  const auto file_of = [&](const std::string& name, const std::string& after_numrecs) {
    std::string bytes = std::string("CDF") + '\x02';
    be32(bytes, 0);  // numrecs
    bytes += after_numrecs;
    const fs::path file = tmp.path() / name;
    std::ofstream(file, std::ios::binary) << bytes;
    return file;
  };
  const auto expect_refused = [&](const fs::path& file, const std::string& words) {
    try {
      (void)read_netcdf_restart(file, 1);
      FAIL() << file << ": no error";
    } catch (const core::InputError& e) {
      EXPECT_NE(e.describe().find(file.string()), std::string::npos) << e.describe();
      EXPECT_NE(e.describe().find(words), std::string::npos) << e.describe();
    }
  };
  std::string dims;  // 2^31 - 1 dimensions in a 20-byte file
  be32(dims, 0x0A);
  be32(dims, 0x7FFFFFFF);
  expect_refused(file_of("dims.nc", dims), "2147483647 dimensions declared");

  std::string att;  // no dimensions; one global attribute of 2^28 doubles
  be32(att, 0);
  be32(att, 0);
  be32(att, 0x0C);
  be32(att, 1);
  be32(att, 1);
  att += std::string("a\0\0\0", 4);
  be32(att, 6);  // NC_DOUBLE
  be32(att, 1u << 28);
  expect_refused(file_of("att.nc", att), "268435456 attribute values declared");

  std::string var;  // one dimension; a variable naming dimension 5
  be32(var, 0x0A);
  be32(var, 1);
  be32(var, 4);
  var += "atom";
  be32(var, 1);
  be32(var, 0);  // no attributes
  be32(var, 0);
  be32(var, 0x0B);
  be32(var, 1);
  be32(var, 1);
  var += std::string("x\0\0\0", 4);
  be32(var, 1);
  be32(var, 5);
  var += std::string(40, '\0');
  expect_refused(file_of("var.nc", var), "a variable names dimension 5 of 1");
}

TEST(AmberFiles, ReadsAsciiMdcrdWithTouchingFieldsAndBoxes) {
  const core::TempDir tmp("trails-amber-test");
  const fs::path file = tmp.path() / "t.mdcrd";
  // 4 atoms: 12 values, 10 per line; values may touch ("-100.000-200.000").
  std::ofstream(file) << "title\n"
                      << "   1.000   2.000   3.000   4.000   5.000   6.000   7.000   8.000"
                         "   9.000  10.000\n"
                      << "-100.000-200.000\n"
                      << "  30.000  31.000  32.000\n"
                      << "   1.500   2.000   3.000   4.000   5.000   6.000   7.000   8.000"
                         "   9.000  10.000\n"
                      << "  11.000  12.000\n"
                      << "  30.000  31.000  32.000\n";
  const AmberFrames f = read_mdcrd(file, 4, true);
  ASSERT_EQ(f.n_frames, 2u);
  EXPECT_DOUBLE_EQ(f.positions_nm[10], -10.0);
  EXPECT_DOUBLE_EQ(f.positions_nm[11], -20.0);
  EXPECT_DOUBLE_EQ(f.positions_nm[12], 0.15);
  EXPECT_DOUBLE_EQ(f.boxes[9 + 8], 3.2);
  EXPECT_THROW(read_mdcrd(file, 5, true), core::InputError);
}

class FakePmemd : public ::testing::Test {
 protected:
  core::TempDir tmp{"trails-amber-engine"};
  config::AmberSpec spec(bool netcdf) const {
    config::AmberSpec s;
    s.executable = (kData / "fake_pmemd.py").string();
    s.top_file = kArgon / "argon2.prmtop";
    s.conf_file = kArgon / "argon2.inpcrd";
    s.netcdf = netcdf;
    s.files.scratch = tmp.path();
    return s;
  }
  static SegmentTask task_of(const Engine& engine) {
    SegmentTask t;
    t.iteration = 1;
    t.walker = 2;
    t.start = engine.default_start();
    t.start.velocities = {0.1, 0.2, 0.3, -0.4, -0.5, -0.625};
    t.steps = 100;
    t.stride = 25;
    t.seed = 99;
    return t;
  }
};

TEST_F(FakePmemd, ASegmentGivesItsFramesAndFinalStateInBothFormats) {
  for (const bool netcdf : {true, false}) {
    AmberEngine engine(spec(netcdf), tmp.path() / "run");
    EXPECT_TRUE(engine.system().molecular);
    const auto result = engine.make_instance()->run(task_of(engine));
    ASSERT_TRUE(result.ok()) << result.error;
    ASSERT_EQ(result.n_frames, 4);
    ASSERT_EQ(result.frames.size(), 24u);
    EXPECT_NEAR(result.frames[3], 0.38 + 0.001, 1e-6);   // frame 1, atom 2, x
    EXPECT_NEAR(result.frames[21], 0.38 + 0.004, 1e-6);  // frame 4
    EXPECT_NEAR(result.final_state.positions[3], 0.384, 1e-12);
    ASSERT_EQ(result.final_state.velocities.size(), 6u);
    EXPECT_NEAR(result.final_state.velocities[5], -0.625, 1e-12);
    EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path()), {}), 1) << "only run/ is left";
  }
}

TEST_F(FakePmemd, AFailingRunIsAFailedWalkerWithTheTailOfMdout) {
  AmberEngine engine(spec(true), tmp.path() / "run");
  ::setenv("FAKE_PMEMD_FAIL", "1", 1);
  const auto result = engine.make_instance()->run(task_of(engine));
  ::unsetenv("FAKE_PMEMD_FAIL");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error.find("exited with status 1"), std::string::npos) << result.error;
  EXPECT_NE(result.error.find("vlimit exceeded for step 7"), std::string::npos) << result.error;
}

// pmemd.cuda runs on its slot's device: the engine uses devices (what the binding check, the
// MPS packing warnings and trails advise ask), and its record names the device as the binding
// check reads it. pmemd and sander use none; their record is the slot's bare index.
TEST_F(FakePmemd, AGpuProgramUsesDevicesAndRecordsItsCudaDevice) {
  const fs::path bin = tmp.path() / "bin";
  fs::create_directories(bin);
  fs::create_symlink(kData / "fake_pmemd.py", bin / "pmemd.cuda");
  auto s = spec(true);
  const AmberEngine cpu(s, tmp.path() / "cpu");
  EXPECT_FALSE(cpu.capabilities().uses_devices);
  s.executable = (bin / "pmemd.cuda").string();
  const AmberEngine gpu(s, tmp.path() / "gpu");
  EXPECT_TRUE(gpu.capabilities().uses_devices);
  EXPECT_NE(gpu.describe().find("pmemd.cuda"), std::string::npos) << gpu.describe();

  const Slot slot{0, 1, 0};
  const auto on_gpu = gpu.make_instance(slot)->run(task_of(gpu));
  const auto on_cpu = cpu.make_instance(slot)->run(task_of(cpu));
  ASSERT_TRUE(on_gpu.ok() && on_cpu.ok()) << on_gpu.error << on_cpu.error;
  EXPECT_EQ(on_gpu.device, "CUDA device 1");
  EXPECT_EQ(on_cpu.device, "1");
  EXPECT_EQ(on_gpu.frames, on_cpu.frames);
  EXPECT_EQ(gpu.make_instance()->run(task_of(gpu)).device, "");  // no slot device, no record
}

TEST_F(FakePmemd, AMissingExecutableIsAConfigError) {
  auto s = spec(true);
  s.executable = "pmemd-not-installed-here";
  EXPECT_THROW(AmberEngine(s, tmp.path() / "run"), core::ConfigError);
}

}  // namespace
}  // namespace trails::engines::amber
