// What engines report about their system (EngineSystem, capabilities, describe) and the registry
// that builds them from their specs: drivers rely on these instead of naming an engine.
#include <filesystem>

#include <gtest/gtest.h>

#include "trails/config/campaign_config.h"
#include "trails/engines/registry.h"

namespace trails::engines {
namespace {

namespace fs = std::filesystem;

TEST(EngineSystem, BuiltinIsACvSpacePointInReducedUnits) {
  config::CampaignConfig c;
  c.engine.md_engine = "builtin";
  c.engine.builtin.potential = config::Potential::MullerBrown;
  c.engine.builtin.dt = 0.0005;
  const auto engine = make_engine(c.engine_spec(), fs::path());
  const EngineSystem& s = engine->system();
  EXPECT_FALSE(s.molecular);
  EXPECT_EQ(s.topology, nullptr);
  EXPECT_EQ(s.n_atoms, 1);
  EXPECT_EQ(s.spatial_dim, 2);
  EXPECT_EQ(s.dt, 0.0005);
  EXPECT_EQ(s.time_unit, "reduced");
  EXPECT_EQ(s.reference_positions, engine->default_start().positions);
  EXPECT_FALSE(engine->capabilities().continues_velocities);  // overdamped: no velocities
  EXPECT_FALSE(engine->capabilities().uses_devices);
  EXPECT_NE(engine->describe().find("muller_brown"), std::string::npos) << engine->describe();

  c.engine.builtin.integrator = config::Integrator::Langevin;
  c.engine.builtin.potential = config::Potential::Harmonic;
  c.engine.builtin.dimension = 5;
  const auto langevin = make_engine(c.engine_spec(), fs::path());
  EXPECT_TRUE(langevin->capabilities().continues_velocities);
  EXPECT_EQ(langevin->system().spatial_dim, 5);
  const auto j = langevin->system().to_json();
  EXPECT_EQ(j.at("molecular"), false);
  EXPECT_EQ(j.at("spatial_dim"), 5);
}

TEST(EngineSystem, OpenMMReportsTopologyUnitsAndThePlatformAfterFallback) {
  const fs::path run_dir =
      fs::temp_directory_path() / ("trails-engine-system-" + std::to_string(getpid()));
  fs::remove_all(run_dir);
  config::CampaignConfig c;
  c.engine.md_engine = "openmm";
  c.engine.openmm.platform_name = "CUDA";  // absent in Debian's OpenMM: falls back to CPU
  c.engine.openmm.dt = 0.001;
  c.system.conf_file = fs::path(TRAILS_TEST_DATA) / "structures/alanine-dipeptide.pdb";
  c.system.forcefield = {"amber14-all.xml"};
  const auto engine = make_engine(c.engine_spec(), run_dir);
  const EngineSystem& s = engine->system();
  EXPECT_TRUE(s.molecular);
  ASSERT_NE(s.topology, nullptr);
  EXPECT_EQ(s.topology->n_atoms(), 22);
  EXPECT_EQ(s.n_atoms, 22);
  EXPECT_EQ(s.spatial_dim, 3);
  EXPECT_EQ(s.dt, 0.001);
  EXPECT_EQ(s.time_unit, "ps");
  EXPECT_EQ(s.length_unit, "nm");
  EXPECT_TRUE(fs::exists(s.topology_file));
  EXPECT_EQ(s.reference_positions.size(), 66u);
  EXPECT_TRUE(s.box.empty());
  EXPECT_TRUE(engine->capabilities().continues_velocities);
  EXPECT_EQ(engine->describe().find("CUDA"), std::string::npos) << engine->describe();
  EXPECT_NE(engine->describe().find("CPU platform"), std::string::npos) << engine->describe();
  fs::remove_all(run_dir);
}

}  // namespace
}  // namespace trails::engines
