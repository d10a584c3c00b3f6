// The free-energy pictures' inputs: the energy scale of a run (reduced units for the built-in
// engine, kJ/mol at engine.temperature or --temperature otherwise) and the CV axis labels with
// their units (cv_axes.h), from hand-written run metadata.
#include <gtest/gtest.h>

#include <cmath>

#include "trails/core/error.h"
#include "trails/report/analyze/free_energy.h"
#include "trails/report/common/cv_axes.h"

using namespace trails;
using nlohmann::json;

namespace {

store::RunMeta builtin_meta() {
  store::RunMeta m;
  m.effective_config = {
      {"engine",
       {{"md_engine", "builtin"}, {"potential", "double_well"}, {"kT", 0.5}, {"dt", 0.001}}}};
  m.engine_system = {{"molecular", false}};
  m.config = json::object();
  return m;
}

store::RunMeta molecular_meta(json cvs) {
  store::RunMeta m;
  m.effective_config = {{"engine", {{"md_engine", "openmm"}, {"temperature", 310.0}}}};
  m.engine_system = {{"molecular", true}};
  m.config = {{"cvs", std::move(cvs)}};
  return m;
}

}  // namespace

TEST(FreeEnergyScale, BuiltinRunsUseTheirReducedKt) {
  const auto s = report::energy_scale(builtin_meta(), std::nullopt);
  EXPECT_EQ(s.kT, 0.5);
  EXPECT_EQ(s.unit, "reduced units");
  EXPECT_EQ(s.statement, "kT = 0.5");
}

TEST(FreeEnergyScale, MolecularRunsUseEngineTemperatureOrTheOption) {
  const auto m = molecular_meta(nullptr);
  const auto s = report::energy_scale(m, std::nullopt);
  EXPECT_DOUBLE_EQ(s.kT, 0.00831446 * 310.0);
  EXPECT_EQ(s.unit, "kJ/mol");
  EXPECT_EQ(s.statement, "T = 310 K");
  const auto t = report::energy_scale(builtin_meta(), 300.0);  // --temperature wins everywhere
  EXPECT_DOUBLE_EQ(t.kT, 0.00831446 * 300.0);
  EXPECT_EQ(t.unit, "kJ/mol");
  EXPECT_THROW(report::energy_scale(m, -1.0), core::UsageError);
  EXPECT_THROW(report::energy_scale(m, std::nan("")), core::UsageError);
}

// The free-energy pictures draw every axis in rad in degrees; the names and units themselves are
// cv_axis()'s (tests/report/pictures_test.cpp).
TEST(CvAxes, FreeEnergyAxesDrawAnglesInDegrees) {
  const auto m = molecular_meta(json::array({
      {{"name", "phi"}, {"kind", "phi"}},
      {{"name", "d"}, {"kind", "distance"}, {"unit", "angstrom"}},
      {{"name", "r"}, {"kind", "rmsd"}},
  }));
  const auto a = report::cv_axes(m, 3);
  ASSERT_EQ(a.size(), 3U);
  EXPECT_EQ(a[0].label(), "phi (degrees)");
  EXPECT_DOUBLE_EQ(a[0].scale, 180.0 / M_PI);
  EXPECT_TRUE(a[0].is_degrees());
  EXPECT_EQ(a[1].label(), "d (Å)");
  EXPECT_EQ(a[1].scale, 1.0);
  EXPECT_FALSE(a[1].is_degrees());
  EXPECT_EQ(a[2].label(), "r (nm)");
  const auto b = report::cv_axes(builtin_meta(), 2);
  EXPECT_EQ(b[0].label(), report::cv_axis_label(json::object(), {{"molecular", false}}, 0, 2));
  EXPECT_EQ(b[1].scale, 1.0);
}
