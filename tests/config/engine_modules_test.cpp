// The engine modules of config/engines/ (docs/architecture.md, "Engines in the configuration"):
// the registry is the list of engine.md_engine's choices, bound rows fill their members and are
// written back, every engine's spec reads the one MD block; the module table, the spec variant
// and each engine's files follow the one engine list (docs/architecture.md, "How to add an
// engine").
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "config_test_support.h"
#include "trails/config/engines/engine_module.h"
#include "trails/config/schema.h"

namespace trails::config {
namespace {

using testing::TempDir;

TEST(EngineModules, RegistryIsTheChoicesOfMdEngine) {
  const detail::KeySpec* md = detail::find_key("engine", "md_engine");
  ASSERT_NE(md, nullptr);
  EXPECT_EQ(md->choices, detail::engine_names());
  for (const std::string_view name : detail::engine_names()) {
    const detail::EngineModule* module = detail::engine_module(name);
    ASSERT_NE(module, nullptr) << name;
    EXPECT_EQ(module->name, name);
  }
  EXPECT_EQ(detail::engine_module("lammps"), nullptr);
}

// The spec variant and the module table are generated from the one engine list: alternative i
// of EngineSpec is the spec of module i.
template <std::size_t... I>
void expect_alternatives_owned_in_order(std::index_sequence<I...>) {
  const auto& modules = detail::engine_modules();
  ASSERT_EQ(modules.size(), sizeof...(I));
  const std::vector<EngineSpec> specs = {EngineSpec(std::in_place_index<I>)...};
  for (std::size_t i = 0; i < specs.size(); ++i) {
    EXPECT_TRUE(modules[i]->owns(specs[i])) << modules[i]->name;
  }
}

TEST(EngineModules, TheSpecVariantFollowsTheModuleTable) {
  expect_alternatives_owned_in_order(std::make_index_sequence<std::variant_size_v<EngineSpec>>());
}

// What docs/architecture.md ("How to add an engine") says a new engine adds: its configuration
// module's header and source, its room with its build_engine, and the room's room.cmake
// declaring its library (the top CMakeLists.txt has no line per engine).
TEST(EngineModules, EveryEngineOfTheListHasItsFiles) {
  namespace fs = std::filesystem;
  const fs::path src = fs::path(TRAILS_SOURCE_DIR) / "src/trails";
  const auto text = [](const fs::path& file) {
    std::ifstream in(file);
    std::stringstream all;
    all << in.rdbuf();
    return all.str();
  };
  const std::string top_cmake = text(fs::path(TRAILS_SOURCE_DIR) / "CMakeLists.txt");
  for (const std::string_view view : detail::engine_names()) {
    const std::string name(view);
    EXPECT_TRUE(fs::exists(src / "config/engines" / (name + ".h"))) << name;
    EXPECT_TRUE(fs::exists(src / "config/engines" / (name + ".cpp"))) << name;
    const fs::path room = src / "engines" / name;
    ASSERT_TRUE(fs::is_directory(room)) << name;
    bool builds = false;
    for (const auto& file : fs::directory_iterator(room)) {
      builds =
          builds || text(file.path()).find("std::unique_ptr<Engine> build_engine(const config::") !=
                        std::string::npos;
    }
    EXPECT_TRUE(builds) << name << ": no build_engine in " << room;
    ASSERT_TRUE(fs::exists(room / "room.cmake")) << name;
    EXPECT_NE(text(room / "room.cmake").find("trails_engine(" + name), std::string::npos) << name;
    EXPECT_EQ(top_cmake.find("trails_engine(" + name), std::string::npos)
        << name << ": its library is declared in its room.cmake";
  }
}

TEST(EngineModules, AModulesRowsAreInTheKeyTableAndBound) {
  for (const char* name : {"amber_executable", "amber_input_file", "amber_extra_args",
                           "amber_trajectory_format", "command", "command_timeout"}) {
    const detail::KeySpec* key = detail::find_key("engine", name);
    ASSERT_NE(key, nullptr) << name;
    EXPECT_TRUE(key->fill_md && key->read_md) << name;
  }
}

// A molecular config for `engine` with a non-default MD block.
std::string md_config(const TempDir& dir, const std::string& engine_lines,
                      const std::string& system_lines) {
  return "outdir: " + (dir.path() / "out").string() +
         "\nn_bins: [10, 10]\nmin_values: [0, 0]\nmax_values: [1, 1]\n"
         "engine:\n" +
         engine_lines +
         "  temperature: 310\n  pressure: 2.5\n  npt: true\n  dt: 0.001\n"
         "system:\n" +
         system_lines + "spawning:\n  walker: 2\n  step: 100\n  stride: 10\n";
}

// The MD block of md_config() in a spec (or OpenMM's parameters).
template <class Spec>
void expect_md_block(const Spec& s) {
  EXPECT_EQ(s.temperature, 310.0);
  EXPECT_EQ(s.pressure, 2.5);
  EXPECT_TRUE(s.npt);
  EXPECT_EQ(s.dt, 0.001);
}

TEST(EngineModules, BoundRowsFillTheirMembersAndReadBack) {
  TempDir dir;
  dir.write("p.prmtop", "");
  dir.write("p.inpcrd", "");
  dir.write("md.in", "");
  const auto file =
      dir.write("c.yaml", md_config(dir,
                                    "  md_engine: amber\n  amber_executable: sander\n"
                                    "  amber_input_file: md.in\n  amber_extra_args: [-O]\n"
                                    "  amber_trajectory_format: ascii\n",
                                    "  conf_file: p.inpcrd\n  top_file: p.prmtop\n"));
  const CampaignConfig c = load_campaign_config(file);
  EXPECT_EQ(c.engine.amber.executable, "sander");
  EXPECT_EQ(c.engine.amber.input_file, dir.path() / "md.in");
  EXPECT_EQ(c.engine.amber.extra_args, std::vector<std::string>{"-O"});
  EXPECT_EQ(c.engine.amber.trajectory_format, "ascii");
  EXPECT_EQ(c.engine.md.temperature, 310.0);
  EXPECT_EQ(c.engine.md.pressure, 2.5);
  EXPECT_TRUE(c.engine.md.npt);
  EXPECT_EQ(c.engine.md.dt, 0.001);
  const nlohmann::json e = c.result_relevant_json()["engine"];
  EXPECT_EQ(e["amber_executable"], "sander");
  EXPECT_EQ(e["amber_input_file"], (dir.path() / "md.in").string());
  EXPECT_EQ(e["amber_trajectory_format"], "ascii");
  EXPECT_EQ(e["temperature"], 310.0);
  const EngineSpec any = c.engine_spec();
  const auto* spec = std::get_if<AmberSpec>(&any);
  ASSERT_NE(spec, nullptr);
  EXPECT_FALSE(spec->netcdf);
  expect_md_block(*spec);
  // Another engine's keys stay out of this run's digest.
  EXPECT_FALSE(e.contains("command"));
  EXPECT_FALSE(e.contains("platform_name"));
}

TEST(EngineModules, EveryEngineReadsTheOneMdBlock) {
  TempDir dir;
  dir.write("s.pdb", "");
  dir.write("w.gro", "");
  dir.write("w.top", "");
  const auto command = load_campaign_config(dir.write(
      "command.yaml",
      md_config(dir, "  md_engine: command\n  command: [/bin/true]\n", "  start: [0.5, 0.5]\n")));
  const auto cs = std::get<CommandSpec>(command.engine_spec());
  expect_md_block(cs);
  const auto gromacs = load_campaign_config(dir.write(
      "gromacs.yaml",
      md_config(dir, "  md_engine: gromacs\n", "  conf_file: w.gro\n  top_file: w.top\n")));
  const auto gs = std::get<GromacsSpec>(gromacs.engine_spec());
  expect_md_block(gs);
  const auto openmm = load_campaign_config(
      dir.write("openmm.yaml", md_config(dir, "  md_engine: openmm\n  platform_name: Reference\n",
                                         "  conf_file: s.pdb\n  forcefield: [amber14-all.xml]\n")));
  const auto os = std::get<OpenMMSpec>(openmm.engine_spec());
  expect_md_block(os.params);
}

}  // namespace
}  // namespace trails::config
