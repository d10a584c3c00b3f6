// Systems serialized by OpenMM 8 (tests/data/openmm/openmm8/argon2-system.xml: a
// CustomNonbondedForce in a serialization version OpenMM 7.7 rejects, written by OpenMM 8.6.1
// with make_argon_system.py). The same tests run in both builds of CI (docs/engines.md,
// "OpenMM 7.7 or 8"): built against OpenMM 8 the file prepares, loads and runs; built against
// Debian's 7.7 both readers (the preparation's Python and the engine's C++) refuse it with a
// message naming the OpenMM that wrote it and what to do.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "support/files.h"
#include "trails/config/campaign_config.h"
#include "trails/core/error.h"
#include "trails/engines/openmm/openmm_engine.h"
#include "trails/engines/openmm/platform.h"
#include "trails/engines/openmm/prepared_system.h"
#include "trails/engines/openmm/serialized_version.h"

namespace trails::engines::openmm {
namespace {

namespace fs = std::filesystem;
const fs::path kSerializedData = TRAILS_TEST_DATA;
const fs::path kOpenMM8Xml = kSerializedData / "openmm/openmm8/argon2-system.xml";

using test_support::read_text;

// This process runs an OpenMM older than 8: the file must be refused.
bool openmm_before_8() { return newer_openmm_version("8", openmm_version()); }

void expect_explained(const std::string& message, const std::string& file) {
  EXPECT_NE(message.find(file), std::string::npos) << message;
  EXPECT_NE(message.find("written by OpenMM 8.6.1"), std::string::npos) << message;
  EXPECT_NE(message.find("OpenMM " + openmm_version()), std::string::npos) << message;
  EXPECT_NE(message.find("Unsupported version number"), std::string::npos) << message;
  EXPECT_NE(message.find("-DOpenMM_ROOT"), std::string::npos) << message;
  EXPECT_NE(message.find("serialize the System again"), std::string::npos) << message;
}

TEST(SerializedVersion, RootAttributeAndOrdering) {
  EXPECT_EQ(serialized_openmm_version(read_text(kOpenMM8Xml)), "8.6.1");
  EXPECT_EQ(serialized_openmm_version(read_text(kSerializedData / "openmm/alad-vacuum/system.xml")),
            "7.7");
  EXPECT_EQ(serialized_openmm_version("<?xml version=\"1.0\" ?>\n<Integrator type=\"x\">"),
            std::nullopt);
  EXPECT_EQ(serialized_openmm_version(""), std::nullopt);
  EXPECT_TRUE(newer_openmm_version("8.6.1", "7.7"));
  EXPECT_TRUE(newer_openmm_version("8.0", "7.7.0"));
  EXPECT_TRUE(newer_openmm_version("7.7.1", "7.7"));
  EXPECT_FALSE(newer_openmm_version("7.7", "7.7.0"));
  EXPECT_FALSE(newer_openmm_version("7.7", "8.1.dev-abc"));
}

// The plugins come from the OpenMM this build links (an -DOpenMM_ROOT build: PREFIX/lib/plugins;
// the wheel's compiled-in default does not exist), so the CPU platform is there in both builds.
TEST(OpenMMPlugins, LoadFromTheBuildsOpenMM) {
  EXPECT_TRUE(fs::is_directory(openmm_plugin_dir())) << openmm_plugin_dir();
  std::string warning;
  EXPECT_EQ(resolve_platform("CPU", &warning), "CPU") << warning;
  EXPECT_TRUE(warning.empty()) << warning;
}

// The engine's reader: a prepared directory whose system.xml came from OpenMM 8 (an OpenMM 8
// Python preparing for a Trails built against 7.7, or a file copied in).
TEST(OpenMM8System, EngineReadsItOnlyUnderOpenMM8) {
  const fs::path dir = fs::temp_directory_path() / ("trails-openmm8-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(kOpenMM8Xml, dir / "system.xml");
  std::ofstream(dir / "prepare.json")
      << R"({"n_atoms": 2, "positions": [0.1, 0.2, 0.3, 0.6, 0.7, 0.8],)"
      << R"( "box": [2.5, 0, 0, 0, 2.5, 0, 0, 0, 2.5], "openmm_version": "8.6.1"})";
  config::OpenMMEngineConfig settings;
  settings.platform_name = "Reference";
  settings.temperature = 120.0;
  settings.dt = 0.002;
  if (openmm_before_8()) {
    try {
      OpenMMEngine engine(settings, load_prepared_system(dir));
      ADD_FAILURE() << "OpenMM " << openmm_version() << " read an OpenMM 8 System";
    } catch (const core::InputError& e) {
      expect_explained(e.what(), (dir / "system.xml").string());
    }
  } else {
    OpenMMEngine engine(settings, load_prepared_system(dir));
    SegmentTask task;
    task.start = engine.default_start();
    task.steps = 20;
    task.stride = 10;
    task.seed = 7;
    const SegmentResult r = engine.make_instance()->run(task);
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.n_frames, 2);
    for (double x : r.frames) EXPECT_TRUE(std::isfinite(x));
  }
  fs::remove_all(dir);
}

// The preparation's reader (share/trails/prepare_openmm.py under the build's default Python):
// system.system_file given as the OpenMM 8 XML.
TEST(OpenMM8System, PreparationReadsItOnlyUnderOpenMM8) {
  const fs::path run_dir =
      fs::temp_directory_path() / ("trails-openmm8-prep-" + std::to_string(::getpid()));
  fs::remove_all(run_dir);
  config::CampaignConfig config;
  config.engine.md_engine = "openmm";
  config.engine.openmm.platform_name = "Reference";
  config.system.conf_file = kSerializedData / "openmm/argon/argon.gro";
  config.system.system_file = kOpenMM8Xml;
  const auto spec = std::get<config::OpenMMSpec>(config.engine_spec());
  if (openmm_before_8()) {
    try {
      prepare_openmm_system(spec, run_dir);
      ADD_FAILURE() << "the preparation read an OpenMM 8 System with OpenMM " << openmm_version();
    } catch (const core::ConfigError& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind("system.system_file: ", 0), 0u) << message;
      expect_explained(message, kOpenMM8Xml.string());
    }
    EXPECT_FALSE(fs::exists(run_dir));  // bad input leaves nothing behind
  } else {
    const PreparedSystem p = prepare_openmm_system(spec, run_dir);
    EXPECT_EQ(p.n_atoms, 2);
    EXPECT_EQ(p.source, "system_xml");
    EXPECT_FALSE(newer_openmm_version("8", p.openmm_version)) << p.openmm_version;
    EXPECT_NE(read_text(p.system_xml).find("CustomNonbondedForce"), std::string::npos);
    config::OpenMMEngineConfig settings;
    settings.platform_name = "Reference";
    EXPECT_NO_THROW(OpenMMEngine(settings, p));
  }
  fs::remove_all(run_dir);
}

}  // namespace
}  // namespace trails::engines::openmm
