#include "trails/report/common/potential_from_meta.h"

#include <algorithm>
#include <fstream>
#include <limits>

#include "trails/report/common/gnuplot.h"

namespace trails::report {
namespace fs = std::filesystem;

std::unique_ptr<engines::builtin::Potential> potential_from_meta(const store::RunMeta& meta) {
  const auto spec = config::builtin_spec_of_run(meta.effective_config);
  return spec ? engines::builtin::make_potential(*spec) : nullptr;
}

double potential_span(const store::RunMeta& meta) {
  const auto spec = config::builtin_spec_of_run(meta.effective_config);
  return 10.0 * (spec ? spec->kT : 1.0);
}

double write_potential_grid(const engines::builtin::Potential& pot, const fs::path& file) {
  const auto box = pot.plot_box();
  std::ofstream out(file);
  double vmin = std::numeric_limits<double>::infinity();
  const int n = 120;
  for (int i = 0; i <= n; ++i) {
    const double x = box[0] + (box[1] - box[0]) * i / n;
    if (pot.dim() == 1) {
      const double p[1] = {x};
      vmin = std::min(vmin, pot.energy(p));
      out << x << ' ' << pot.energy(p) << '\n';
      continue;
    }
    for (int j = 0; j <= n; ++j) {
      const double y = box[2] + (box[3] - box[2]) * j / n;
      const double p[2] = {x, y};
      const double v = pot.energy(p);
      vmin = std::min(vmin, v);
      out << x << ' ' << y << ' ' << v << '\n';
    }
    out << '\n';
  }
  close_checked(out, file);
  return vmin;
}

}  // namespace trails::report
