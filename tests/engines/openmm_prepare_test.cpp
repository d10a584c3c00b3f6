// System preparation through share/trails/prepare_openmm.py (/usr/bin/python3, OpenMM's Python
// layer): every input kind Trails-MD accepts, reuse by digest, and bad inputs as ConfigErrors
// that name the key and leave nothing behind.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/files.h"
#include "trails/config/campaign_config.h"
#include "trails/core/error.h"
#include "trails/engines/openmm/openmm_engine.h"
#include "trails/engines/openmm/prepared_system.h"
#include "trails/engines/registry.h"

namespace trails::engines::openmm {
namespace {

namespace fs = std::filesystem;
const fs::path kPrepareData = TRAILS_TEST_DATA;
const fs::path kAlad = kPrepareData / "structures/alanine-dipeptide.pdb";

class Prepare : public ::testing::Test {
 protected:
  void SetUp() override {
    run_dir = fs::temp_directory_path() /
              ("trails-prepare-" + std::to_string(getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(run_dir);
    fs::create_directories(run_dir);
    config.engine.md_engine = "openmm";
    config.engine.openmm.platform_name = "Reference";
    config.system.conf_file = kAlad;
  }
  void TearDown() override { fs::remove_all(run_dir); }
  config::OpenMMSpec spec() const { return std::get<config::OpenMMSpec>(config.engine_spec()); }
  std::string error_of() {
    try {
      prepare_openmm_system(spec(), run_dir);
    } catch (const core::ConfigError& e) {
      return e.what();
    }
    return "(no ConfigError)";
  }
  fs::path run_dir;
  config::CampaignConfig config;
};

TEST_F(Prepare, PdbWithForceFieldThenReusedByDigest) {
  config.system.forcefield = {"amber14-all.xml"};
  const PreparedSystem p = prepare_openmm_system(spec(), run_dir);
  EXPECT_EQ(p.n_atoms, 22);
  EXPECT_EQ(p.source, "forcefield");
  EXPECT_TRUE(p.box.empty());  // no CRYST1: vacuum, NoCutoff
  EXPECT_EQ(p.dir, run_dir / "prepared" / p.digest);
  // PDB atom 1 (HH31) is at (2.000, 1.000, 0.000) Å.
  EXPECT_DOUBLE_EQ(p.positions[0], 0.2);
  EXPECT_DOUBLE_EQ(p.positions[1], 0.1);
  EXPECT_TRUE(fs::exists(p.topology_pdb));
  const std::string xml = test_support::read_text(p.system_xml);
  EXPECT_NE(xml.find("HarmonicBondForce"), std::string::npos);
  EXPECT_NE(xml.find("method=\"0\""), std::string::npos);  // NonbondedForce NoCutoff
  const auto written = fs::last_write_time(p.dir / "prepare.json");
  const PreparedSystem again = prepare_openmm_system(spec(), run_dir);  // resume: reused
  EXPECT_EQ(again.dir, p.dir);
  EXPECT_EQ(fs::last_write_time(p.dir / "prepare.json"), written);
  EXPECT_EQ(again.positions, p.positions);
  // A different force field is a different digest.
  config.system.forcefield = {"amber14-all.xml", "implicit/gbn2.xml"};
  const PreparedSystem gb = prepare_openmm_system(spec(), run_dir);
  EXPECT_NE(gb.digest, p.digest);
  EXPECT_NE(test_support::read_text(gb.system_xml).find("CustomGBForce"), std::string::npos);
  // And the engine runs on it.
  const auto engine = make_engine(config.engine_spec(), run_dir);
  SegmentTask t;
  t.start = engine->default_start();
  t.steps = 20;
  t.stride = 10;
  t.seed = 1;
  const SegmentResult r = engine->make_instance()->run(t);
  EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.n_frames, 2);
}

// prepare.json records a checksum of every file read later; a load (a resume) refuses a
// prepared directory whose files were changed since (docs/reliability.md, "What is verified on
// read"). A record without checksums is read unverified.
TEST_F(Prepare, FilesChangedAfterPreparationAreACorruptionErrorNamingThem) {
  config.system.forcefield = {"amber14-all.xml"};
  const PreparedSystem p = prepare_openmm_system(spec(), run_dir);
  const nlohmann::json info =
      nlohmann::json::parse(test_support::read_text(p.dir / "prepare.json"));
  ASSERT_TRUE(info.contains("checksums"));
  EXPECT_TRUE(info["checksums"].contains("system.xml"));
  EXPECT_TRUE(info["checksums"].contains("topology.pdb"));
  EXPECT_FALSE(info["checksums"].contains("integrator.xml"));  // none was written
  EXPECT_NO_THROW(load_prepared_system(p.dir));
  const auto error_on_load = [&] {
    try {
      load_prepared_system(p.dir);
    } catch (const core::CorruptionError& e) {
      return std::string(e.what());
    }
    return std::string("(no CorruptionError)");
  };
  for (const char* name : {"system.xml", "topology.pdb"}) {
    const fs::path file = p.dir / name;
    const std::string original = test_support::read_text(file);
    std::ofstream(file, std::ios::app) << ' ';
    const std::string m = error_on_load();
    EXPECT_NE(m.find(file.string() + ": was changed after preparation"), std::string::npos) << m;
    EXPECT_NE(m.find("start a new run directory"), std::string::npos) << m;
    // A resume goes through the same load.
    EXPECT_THROW(prepare_openmm_system(spec(), run_dir), core::CorruptionError);
    std::ofstream(file, std::ios::trunc) << original;  // restored: loads again
    EXPECT_NO_THROW(load_prepared_system(p.dir)) << name;
  }
  fs::rename(p.dir / "topology.pdb", run_dir / "moved.pdb");
  EXPECT_NE(error_on_load().find("topology.pdb: was removed after preparation"), std::string::npos);
  fs::rename(run_dir / "moved.pdb", p.dir / "topology.pdb");
  std::ofstream(p.dir / "integrator.xml") << "<Integrator/>";
  EXPECT_NE(error_on_load().find("integrator.xml: was added after preparation"), std::string::npos);
  fs::remove(p.dir / "integrator.xml");
  // An older record, without checksums: read unverified.
  nlohmann::json old = info;
  old.erase("checksums");
  std::ofstream(p.dir / "prepare.json", std::ios::trunc) << old.dump();
  std::ofstream(p.dir / "system.xml", std::ios::app) << ' ';
  EXPECT_NO_THROW(load_prepared_system(p.dir));
}

TEST_F(Prepare, SerializedSystemXmlWithConfFilePositions) {
  config.system.system_file = kPrepareData / "openmm/alad-vacuum/system.xml";
  const PreparedSystem p = prepare_openmm_system(spec(), run_dir);
  EXPECT_EQ(p.source, "system_xml");
  EXPECT_EQ(p.n_atoms, 22);
  EXPECT_DOUBLE_EQ(p.positions[0], 0.2);
}

TEST_F(Prepare, CustomMakeSystemModule) {
  const fs::path module = run_dir / "my_system.py";
  std::ofstream(module) << "from openmm import app\n"
                           "def make_system(topology, temp):\n"
                           "    assert abs(temp - 310.0) < 1e-9\n"
                           "    ff = app.ForceField('amber14-all.xml')\n"
                           "    return ff.createSystem(topology, constraints=app.HBonds)\n";
  config.system.system_file = module;
  config.engine.openmm.temperature = 310.0;
  const PreparedSystem p = prepare_openmm_system(spec(), run_dir);
  EXPECT_EQ(p.source, "make_system");
  EXPECT_EQ(p.n_atoms, 22);
  EXPECT_FALSE(p.integrator_xml);
}

TEST_F(Prepare, CustomMakeSystemWithItsOwnIntegratorReseededPerWalker) {
  const fs::path module = run_dir / "with_integrator.py";
  std::ofstream(module) << "import openmm\nfrom openmm import app\n"
                           "def make_system(topology, **kwargs):\n"
                           "    ff = app.ForceField('amber14-all.xml')\n"
                           "    system = ff.createSystem(topology, constraints=app.HBonds)\n"
                           "    return system, openmm.LangevinIntegrator(kwargs['temp'], 5.0, "
                           "kwargs['dt'])\n";
  config.system.system_file = module;
  const PreparedSystem p = prepare_openmm_system(spec(), run_dir);
  ASSERT_TRUE(p.integrator_xml);
  EXPECT_NE(test_support::read_text(*p.integrator_xml).find("LangevinIntegrator"),
            std::string::npos);
  const OpenMMEngine engine(config.engine.openmm, p);
  SegmentTask t;
  t.start = engine.default_start();
  t.steps = 40;
  t.stride = 20;
  t.seed = 3;
  auto warm = engine.make_instance();
  (void)warm->run(t);
  t.seed = 4;
  const SegmentResult a = warm->run(t);
  const SegmentResult b = engine.make_instance()->run(t);
  ASSERT_TRUE(a.ok() && b.ok()) << a.error << b.error;
  EXPECT_EQ(a.frames, b.frames);
  std::ofstream(*p.integrator_xml, std::ios::app) << ' ';  // checksummed like system.xml
  EXPECT_THROW(load_prepared_system(p.dir), core::CorruptionError);
}

TEST_F(Prepare, GroPlusTopWithBox) {
  config.system.conf_file = kPrepareData / "openmm/argon/argon.gro";
  config.system.top_file = kPrepareData / "openmm/argon/argon.top";
  const PreparedSystem p = prepare_openmm_system(spec(), run_dir);
  EXPECT_EQ(p.source, "top");
  EXPECT_EQ(p.n_atoms, 2);
  ASSERT_EQ(p.box.size(), 9u);
  EXPECT_DOUBLE_EQ(p.box[0], 2.5);
  EXPECT_DOUBLE_EQ(p.box[8], 2.5);
  EXPECT_DOUBLE_EQ(p.positions[3], 0.6);
  EXPECT_NE(test_support::read_text(p.system_xml).find("method=\"4\""), std::string::npos);  // PME
}

// A hand-written Amber prmtop (tests/data/openmm/argon-amber: two argon atoms, one LJ type
// with A = 4εσ¹², B = 4εσ⁶ for σ = 3.405 Å, ε = 0.2381 kcal/mol, no bonds, IFBOX 0) + inpcrd.
TEST_F(Prepare, InpcrdPlusPrmtopInVacuum) {
  config.system.conf_file = kPrepareData / "openmm/argon-amber/argon2.inpcrd";
  config.system.top_file = kPrepareData / "openmm/argon-amber/argon2.prmtop";
  const PreparedSystem p = prepare_openmm_system(spec(), run_dir);
  EXPECT_EQ(p.source, "prmtop");
  EXPECT_EQ(p.n_atoms, 2);
  EXPECT_TRUE(p.box.empty());  // IFBOX 0 and no box in the inpcrd: NoCutoff
  EXPECT_DOUBLE_EQ(p.positions[3], 0.38);
  const std::string xml = test_support::read_text(p.system_xml);
  EXPECT_NE(xml.find("method=\"0\""), std::string::npos);  // NoCutoff
  // σ = (A/B)^(1/6) = 0.3405 nm and ε = B²/4A = 0.2381 · 4.184 kJ/mol, from the coefficients.
  EXPECT_NE(xml.find("eps=\".99621040"), std::string::npos) << xml.substr(0, 2000);
  EXPECT_NE(xml.find("sig=\".3404999999"), std::string::npos);
  EXPECT_NE(test_support::read_text(p.topology_pdb).find("Ar    AR"), std::string::npos);
}

TEST_F(Prepare, UnknownForceFieldNamesTheKeyAndWritesNothing) {
  config.system.forcefield = {"no-such-forcefield.xml"};
  const std::string m = error_of();
  EXPECT_NE(m.find("system.forcefield: cannot load force field"), std::string::npos) << m;
  EXPECT_NE(m.find("no-such-forcefield.xml"), std::string::npos) << m;
  EXPECT_FALSE(fs::exists(run_dir / "prepared"));
  // A run directory that did not exist before is not left behind either.
  const fs::path fresh = run_dir / "new-run";
  EXPECT_THROW(prepare_openmm_system(spec(), fresh), core::ConfigError);
  EXPECT_FALSE(fs::exists(fresh));
}

TEST_F(Prepare, BarePdbNeedsParameters) {
  const std::string m = error_of();
  EXPECT_NE(m.find("system.top_file:"), std::string::npos) << m;
  EXPECT_NE(m.find("system.forcefield"), std::string::npos) << m;
}

TEST_F(Prepare, AtomCountMismatchIsReported) {
  config.system.conf_file = kPrepareData / "openmm/argon/argon.gro";
  config.system.system_file = kPrepareData / "openmm/alad-vacuum/system.xml";
  const std::string m = error_of();
  EXPECT_NE(m.find("system.conf_file:"), std::string::npos) << m;
  EXPECT_NE(m.find("2 atoms but the System has 22 particles"), std::string::npos) << m;
}

TEST_F(Prepare, ForceFieldThatDoesNotMatchTheStructure) {
  config.system.forcefield = {"amber14/tip3p.xml"};  // water only: no template for ALA
  const std::string m = error_of();
  EXPECT_NE(m.find("system.forcefield:"), std::string::npos) << m;
  EXPECT_NE(m.find("does not match"), std::string::npos) << m;
}

}  // namespace
}  // namespace trails::engines::openmm
