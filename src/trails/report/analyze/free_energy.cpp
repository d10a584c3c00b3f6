// Free-energy surfaces (free_energy.h): the histogram numerics, a run's energy scale and the
// fes.png gnuplot script.
#include "trails/report/analyze/free_energy.h"
#include "trails/core/temp_dir.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <limits>

#include <fmt/format.h>

#include "trails/config/engine_spec.h"
#include "trails/core/error.h"
#include "trails/report/common/gnuplot.h"
#include "trails/report/common/potential_from_meta.h"

namespace trails::report {
namespace fs = std::filesystem;
namespace {}  // namespace

EnergyScale energy_scale(const store::RunMeta& meta, std::optional<double> temperature_k) {
  if (temperature_k) {
    if (!(std::isfinite(*temperature_k) && *temperature_k > 0)) {
      throw core::UsageError(fmt::format("--temperature {} K must be positive", *temperature_k));
    }
    return {analysis::kBoltzmannKjPerMolK * *temperature_k, "kJ/mol",
            fmt::format("T = {:g} K", *temperature_k), *temperature_k};
  }
  if (const auto spec = config::builtin_spec_of_run(meta.effective_config)) {
    return {spec->kT, "reduced units", fmt::format("kT = {:g}", spec->kT), std::nullopt};
  }
  const auto& engine = meta.effective_config.value("engine", nlohmann::json::object());
  const double t = engine.is_object() ? engine.value("temperature", 300.0) : 300.0;
  return {analysis::kBoltzmannKjPerMolK * t, "kJ/mol", fmt::format("T = {:g} K", t), t};
}

std::string EnergyScale::kT_text() const {
  if (temperature_k) return fmt::format("kT {:.4g} {} at {:g} K", kT, unit, *temperature_k);
  return fmt::format("{} ({})", statement, unit);
}

namespace {

std::string palette() {
  return "set palette defined (0 '#440154', 0.25 '#3b528b', 0.5 '#21908d', 0.75 '#5dc963', 1 "
         "'#fde725')\n";
}

}  // namespace

std::string free_energy_script(const FreeEnergyPicture& pic, const fs::path& dir,
                               const fs::path& png, analysis::FreeEnergySurface* out_fes) {
  const int dims = std::min(pic.point_dim, 2);
  const auto fes = analysis::free_energy_surface(pic.points, pic.point_dim, dims, pic.weights,
                                                 pic.bins, pic.scale.kT);
  const double sx = pic.axes.at(0).scale;
  const double sy = dims == 2 ? pic.axes.at(1).scale : 1.0;
  const auto centre = [&](int axis, int i) {
    const auto& e = fes.edges[static_cast<std::size_t>(axis)];
    return 0.5 * (e[static_cast<std::size_t>(i)] + e[static_cast<std::size_t>(i) + 1]);
  };
  double fmax = 0.0;
  for (const double f : fes.free_energy) {
    if (std::isfinite(f)) fmax = std::max(fmax, f);
  }
  {
    std::ofstream out(dir / "fes.dat");
    for (int i = 0; i < fes.bins; ++i) {
      if (dims == 1) {
        const double f = fes.free_energy[static_cast<std::size_t>(i)];
        if (std::isfinite(f)) {
          out << centre(0, i) * sx << ' ' << f << '\n';
        } else {
          out << '\n';  // an empty bin breaks the curve: blank, not 0
        }
        continue;
      }
      for (int j = 0; j < fes.bins; ++j) {
        const double f =
            fes.free_energy[static_cast<std::size_t>(i) * static_cast<std::size_t>(fes.bins) +
                            static_cast<std::size_t>(j)];
        out << centre(0, i) * sx << ' ' << centre(1, j) * sy << ' '
            << (std::isfinite(f) ? fmt::format("{}", f) : std::string("NaN")) << '\n';
      }
      out << '\n';
    }
    close_checked(out, dir / "fes.dat");
  }
  const std::string unit = pic.scale.unit;
  std::string g = "reset\nset terminal pngcairo size 900,680 enhanced font 'Sans,11'\n";
  g += "set output " + gp_file(png) + "\n";
  g += "set title '" +
       gp_quote(fmt::format("Free energy F = -kT ln p ({}), {}", pic.source, pic.scale.statement)) +
       "' noenhanced\n";
  g += "set xlabel '" + gp_quote(pic.axes[0].label()) + "' noenhanced\n";
  const bool potential =
      pic.potential != nullptr && pic.potential->has_energy() && pic.potential->dim() == dims;
  if (dims == 1) {
    g += "set ylabel '" + gp_quote("F (" + unit + ")") +
         "' noenhanced\nset grid\nset key top center\n";
    std::string plot = "plot " + gp_file(dir / "fes.dat") +
                       " using 1:2 with linespoints pt 7 ps 0.5 lw 2 lc rgb '#21908d' title 'F'";
    // V - V_min beside F only when both are in the potential's units (built-in, no --temperature).
    if (potential && unit == "reduced units") {
      const double vmin = write_potential_grid(*pic.potential, dir / "potential.dat");
      plot += fmt::format(
          ", {} using 1:($2-{}) with lines dt 2 lw 1.5 lc rgb '#555555' title "
          "'V - V_{{min}}'",
          gp_file(dir / "potential.dat"), vmin);
      const auto box = pic.potential->plot_box();
      g += fmt::format("set xrange [{}:{}]\nset yrange [0:{}]\n", box[0], box[1],
                       std::max(fmax, 1e-9) * 1.15);
    }
    g += plot + "\n";
  } else {
    g += "set ylabel '" + gp_quote(pic.axes[1].label()) + "' noenhanced\n";
    g += "set cblabel '" + gp_quote("F (" + unit + ")") + "' noenhanced\nset cbrange [0:*]\n";
    g += palette() + "set key off\n";
    std::string plot = "plot " + gp_file(dir / "fes.dat") + " using 1:2:3 with image";
    if (potential) {
      const double vmin = write_potential_grid(*pic.potential, dir / "potential.dat");
      g += fmt::format(
          "set contour base\nunset surface\nset view map\nset cntrparam levels incremental "
          "{},{},{}\nset table {}\nsplot {} using 1:2:3 with lines\nunset table\nunset "
          "contour\nset surface\n",
          vmin + pic.potential_span / 20.0, pic.potential_span / 20.0, vmin + pic.potential_span,
          gp_file(dir / "contours.dat"), gp_file(dir / "potential.dat"));
      const auto box = pic.potential->plot_box();
      g += fmt::format("set xrange [{}:{}]\nset yrange [{}:{}]\nset size ratio -1\n", box[0],
                       box[1], box[2], box[3]);
      plot +=
          ", " + gp_file(dir / "contours.dat") + " using 1:2 with lines lc rgb '#d0d0d0' lw 0.8";
    } else {
      std::array<double, 4> box{fes.edges[0].front() * sx, fes.edges[0].back() * sx,
                                fes.edges[1].front() * sy, fes.edges[1].back() * sy};
      const bool angles = pic.axes[0].is_degrees() && pic.axes[1].is_degrees();
      if (angles) {  // the whole circle on both axes, square: a Ramachandran-style map
        box = {std::min(box[0], -180.0), std::max(box[1], 180.0), std::min(box[2], -180.0),
               std::max(box[3], 180.0)};
      }
      g += fmt::format("set xrange [{}:{}]\nset yrange [{}:{}]\n", box[0], box[1], box[2], box[3]);
      if (angles) g += "set xtics 60\nset ytics 60\nset size ratio -1\n";
    }
    g += plot + "\n";
  }
  if (out_fes != nullptr) *out_fes = fes;
  return g;
}

void write_free_energy_png(const FreeEnergyPicture& picture, const core::OutputTarget& target,
                           analysis::FreeEnergySurface* fes) {
  const core::TempDir dir("trails-fes");
  const fs::path png = dir.path() / "fes.png";
  run_gnuplot(free_energy_script(picture, dir.path(), png, fes), "the free-energy picture");
  stage_picture(png, target, "the free-energy picture")->commit();
}

}  // namespace trails::report
