// engine_spec_json / engine_spec_from_json (config/engine_spec.h): how a driver ships its engine
// to a worker process. Every field survives the round trip through CBOR, doubles exactly.
#include <gtest/gtest.h>

#include "trails/config/engine_spec.h"
#include "trails/core/error.h"

namespace trails::config {
namespace {

using json = nlohmann::json;

EngineSpec through_cbor(const EngineSpec& spec) {
  return engine_spec_from_json(json::from_cbor(json::to_cbor(engine_spec_json(spec))));
}

TEST(EngineSpecJson, BuiltinRoundTripsEveryField) {
  BuiltinSpec b;
  b.potential = Potential::Harmonic;
  b.integrator = Integrator::Langevin;
  b.kT = 0.1 + 0.2;  // not a short decimal
  b.dt = 1e-5;
  b.friction = 3.25;
  b.mass = 7.5;
  b.synthetic_cost_ms = 15;
  b.synthetic_startup_ms = 2.5;
  b.dimension = 5;
  const auto d = std::get<BuiltinSpec>(through_cbor(b));
  EXPECT_EQ(d.potential, b.potential);
  EXPECT_EQ(d.integrator, b.integrator);
  EXPECT_EQ(d.kT, b.kT);
  EXPECT_EQ(d.dt, b.dt);
  EXPECT_EQ(d.friction, b.friction);
  EXPECT_EQ(d.mass, b.mass);
  EXPECT_EQ(d.synthetic_cost_ms, b.synthetic_cost_ms);
  EXPECT_EQ(d.synthetic_startup_ms, b.synthetic_startup_ms);
  EXPECT_EQ(d.dimension, b.dimension);
  for (const char* name :
       {"double_well", "muller_brown", "three_well", "harmonic", "biased_walk"}) {
    EXPECT_STREQ(potential_name(*potential_named(name)), name);
  }
}

TEST(EngineSpecJson, OpenMMRoundTripsEveryField) {
  OpenMMSpec s;
  s.params = {310.5, 600.0, 2.0, true, 0.004, "OpenCL", "double", Reproducibility::Fast,
              true,  3,     2.0, 50,   1e-7,  100};
  s.inputs = {"/a/conf.gro",        "/a/topol.top",
              std::nullopt,         {"amber14-all.xml", "tip3p.xml"},
              "/share/gromacs/top", "/usr/bin/python3"};
  s.seed_base = 18446744073709551615ull;
  const auto d = std::get<OpenMMSpec>(through_cbor(s));
  EXPECT_EQ(d.params.temperature, 310.5);
  EXPECT_EQ(d.params.velocity_temperature, 600.0);
  EXPECT_EQ(d.params.pressure, 2.0);
  EXPECT_TRUE(d.params.npt);
  EXPECT_EQ(d.params.dt, 0.004);
  EXPECT_EQ(d.params.platform_name, "OpenCL");
  EXPECT_EQ(d.params.precision, "double");
  EXPECT_EQ(d.params.reproducibility, Reproducibility::Fast);
  EXPECT_TRUE(d.params.equilibrate);
  EXPECT_EQ(d.params.device_index, 3);
  EXPECT_EQ(d.params.friction, 2.0);
  EXPECT_EQ(d.params.barostat_interval, 50);
  EXPECT_EQ(d.params.constraint_tolerance, 1e-7);
  EXPECT_EQ(d.params.equilibration_steps, 100);
  EXPECT_EQ(d.inputs.conf_file, s.inputs.conf_file);
  EXPECT_EQ(d.inputs.top_file, s.inputs.top_file);
  EXPECT_FALSE(d.inputs.system_file.has_value());
  EXPECT_EQ(d.inputs.forcefield, s.inputs.forcefield);
  EXPECT_EQ(d.inputs.gromacs_include_dir, s.inputs.gromacs_include_dir);
  EXPECT_EQ(d.inputs.python, s.inputs.python);
  EXPECT_EQ(d.seed_base, s.seed_base);
}

TEST(EngineSpecJson, ForeignJsonIsACorruptionError) {
  EXPECT_THROW(engine_spec_from_json(json{{"engine", "gromacs"}}), core::CorruptionError);
  EXPECT_THROW(engine_spec_from_json(json{{"engine", "builtin"}}), core::CorruptionError);
  EXPECT_THROW(engine_spec_from_json(json::array()), core::CorruptionError);
}

}  // namespace
}  // namespace trails::config
