#include "trails/report/msm/msm_network.h"

#include <algorithm>
#include <cmath>
#include <fstream>

#include <fmt/format.h>

#include "trails/analysis/msm_model.h"
#include "trails/analysis/pcca.h"
#include "trails/analysis/tpt.h"
#include "trails/core/error.h"
#include "trails/report/common/gnuplot.h"

namespace trails::report {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

json json_number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json matrix(const Eigen::MatrixXd& m, double scale) {
  json out = json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    json row = json::array();
    for (Eigen::Index j = 0; j < m.cols(); ++j) row.push_back(json_number(m(i, j) * scale));
    out.push_back(row);
  }
  return out;
}

// The unit the MFPTs read best in: their largest finite value's.
TimeScale mfpt_scale(const CoarseNetwork& net, const TimeAxis& time) {
  double largest = 0.0;
  for (Eigen::Index i = 0; i < net.mfpt.size(); ++i) {
    const double t = net.mfpt.data()[i];
    if (std::isfinite(t)) largest = std::max(largest, t);
  }
  return time.readable(largest);
}

std::string set_name(std::size_t a) { return fmt::format("S{}", a + 1); }

// Where the model came from, for the table's first line.
std::string source(const CoarseNetwork& net) {
  return net.iteration ? fmt::format("built at iteration {}", *net.iteration)
                       : std::string("of the trajectories");
}

// A JSON matrix whose nulls (non-finite values) read back as NaN.
Eigen::MatrixXd matrix_of(const json& rows) {
  const auto n = static_cast<Eigen::Index>(rows.size());
  Eigen::MatrixXd m(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const json& row = rows.at(static_cast<std::size_t>(i));
    if (static_cast<Eigen::Index>(row.size()) != n) {
      throw core::InputError("the model's pcca block has a matrix that is not square");
    }
    for (Eigen::Index j = 0; j < n; ++j) {
      const json& v = row.at(static_cast<std::size_t>(j));
      m(i, j) = v.is_number() ? v.get<double>() : NAN;
    }
  }
  return m;
}

std::string time_text(double frames, const TimeScale& u) {
  if (!std::isfinite(frames)) return "-";
  const double v = frames * u.per_frame;
  if (v >= 100 && v < 1e6) return fmt::format("{:.0f} {}", v, u.unit);
  return fmt::format("{:.3g} {}", v, u.unit);
}

}  // namespace

std::optional<CoarseNetwork> coarse_network(const msm::MsmBuildRecord& b) {
  if (!b.metastable_memberships || !b.metastable_assignments || b.n_active < 2 ||
      b.transition_matrix.rows() != b.n_active) {
    return std::nullopt;
  }
  const Eigen::MatrixXd& chi = *b.metastable_memberships;
  const auto m = static_cast<std::size_t>(chi.cols());
  const Eigen::VectorXd pi = Eigen::Map<const Eigen::VectorXd>(
      b.stationary_distribution.data(),
      static_cast<Eigen::Index>(b.stationary_distribution.size()));
  CoarseNetwork net;
  net.iteration = b.iteration;
  net.lag = b.lagtime;
  net.transition = analysis::coarse_transition_matrix(b.transition_matrix, pi, chi);
  std::vector<std::vector<int>> sets(m);
  net.populations.assign(m, 0.0);
  const auto& assigned = *b.metastable_assignments;
  for (std::size_t i = 0; i < assigned.size(); ++i) {
    const auto a = static_cast<std::size_t>(assigned[i]);
    sets.at(a).push_back(static_cast<int>(i));
    net.populations[a] += pi(static_cast<Eigen::Index>(i));
  }
  for (const auto& s : sets) net.microstates.push_back(static_cast<int>(s.size()));
  const analysis::MsmModel model(b.transition_matrix, b.lagtime, true, b.active_set, pi);
  net.mfpt = analysis::mfpt_between_sets(model, sets);
  return net;
}

CoarseNetwork coarse_network_of_model(const json& model) {
  const json& p = model.at("pcca");
  CoarseNetwork net;
  net.lag = model.at("lag").get<int>();
  for (const auto& v : p.at("populations")) net.populations.push_back(v.get<double>());
  for (const auto& set : p.at("sets")) net.microstates.push_back(static_cast<int>(set.size()));
  net.transition = matrix_of(p.at("coarse_transition_matrix"));
  net.mfpt = matrix_of(p.at("mfpt"));
  return net;
}

json network_json(const CoarseNetwork& net, const TimeAxis& time) {
  const TimeScale u = mfpt_scale(net, time);
  json sets = json::array();
  for (std::size_t a = 0; a < net.populations.size(); ++a) {
    sets.push_back({{"name", set_name(a)},
                    {"population", json_number(net.populations[a])},
                    {"microstates", net.microstates[a]}});
  }
  return {{"iteration", net.iteration ? json(*net.iteration) : json(nullptr)},
          {"lag_frames", net.lag},
          {"frame_ps", time.frame_ps ? json(*time.frame_ps) : json(nullptr)},
          {"sets", sets},
          {"coarse_transition_matrix", matrix(net.transition, 1.0)},
          {"mfpt_frames", matrix(net.mfpt, 1.0)},
          {"mfpt_unit", u.unit},
          {"mfpt", matrix(net.mfpt, u.per_frame)}};
}

std::string network_table(const CoarseNetwork& net, const TimeAxis& time) {
  const TimeScale u = mfpt_scale(net, time);
  const std::size_t m = net.populations.size();
  std::string lag = fmt::format("{} frames", net.lag);
  if (time.frame_ps) lag += fmt::format(" = {:.4g} ps", net.lag * *time.frame_ps);
  std::string t = fmt::format("PCCA+ network of the MSM {} (lag {}), {} metastable sets\n\n",
                              source(net), lag, m);
  t += fmt::format("{:<5}{:>12}{:>13}\n", "set", "population", "microstates");
  for (std::size_t a = 0; a < m; ++a) {
    t += fmt::format("{:<5}{:>10.2f} %{:>13}\n", set_name(a), 100.0 * net.populations[a],
                     net.microstates[a]);
  }
  const auto header = [&] {
    std::string h = fmt::format("{:<5}", "");
    for (std::size_t b = 0; b < m; ++b) h += fmt::format("{:>14}", set_name(b));
    return h + "\n";
  };
  t += "\ncoarse transition matrix (probability per lag; row: from, column: to)\n" + header();
  for (std::size_t a = 0; a < m; ++a) {
    t += fmt::format("{:<5}", set_name(a));
    for (std::size_t b = 0; b < m; ++b) {
      t += fmt::format("{:>14.6f}",
                       net.transition(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b)));
    }
    t += "\n";
  }
  t += fmt::format("\nmean first passage time ({}; row: from, column: to)\n", u.unit) + header();
  for (std::size_t a = 0; a < m; ++a) {
    t += fmt::format("{:<5}", set_name(a));
    for (std::size_t b = 0; b < m; ++b) {
      const double v =
          net.mfpt(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b)) * u.per_frame;
      t += std::isfinite(v) ? fmt::format("{:>14.6g}", v) : fmt::format("{:>14}", "-");
    }
    t += "\n";
  }
  return t;
}

int network_picture_height(const CoarseNetwork& net) {
  return net.populations.size() == 2 ? 480 : 760;
}

std::string network_plot(const CoarseNetwork& net, const TimeAxis& time, const fs::path& dir) {
  const TimeScale u = mfpt_scale(net, time);
  const std::size_t m = net.populations.size();
  // Nodes on a circle (two: side by side), radius growing with the square root of the
  // population so that the area follows it.
  std::vector<double> x(m), y(m), r(m);
  for (std::size_t a = 0; a < m; ++a) {
    const double angle = M_PI - 2.0 * M_PI * static_cast<double>(a) / static_cast<double>(m);
    x[a] = std::cos(angle);
    y[a] = m == 2 ? 0.0 : std::sin(angle);
    r[a] = 0.08 + 0.3 * std::sqrt(std::max(net.populations[a], 0.0));
  }
  {
    std::ofstream out(dir / "nodes.dat");
    for (std::size_t a = 0; a < m; ++a) {
      out << x[a] << ' ' << y[a] << ' ' << r[a] << " \"" << set_name(a) << "\\n"
          << fmt::format("{:.1f} %", 100.0 * net.populations[a]) << "\"\n";
    }
    close_checked(out, dir / "nodes.dat");
  }
  double largest = 0.0;
  for (std::size_t a = 0; a < m; ++a) {
    for (std::size_t b = 0; b < m; ++b) {
      if (a != b)
        largest = std::max(
            largest, net.transition(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b)));
    }
  }
  std::string g = fmt::format(
      "set title \"PCCA+ metastable sets of the MSM {} (lag {} frames)\\nnode area ~ "
      "population; arrow a → b: MFPT ({}), p = coarse transition probability per lag\" "
      "noenhanced\n",
      net.iteration ? fmt::format("at iteration {}", *net.iteration) : "of the trajectories",
      net.lag, u.unit);
  g += "set size ratio -1\nunset border\nunset tics\nunset key\n";
  g += m == 2 ? "set xrange [-1.6:1.6]\nset yrange [-0.75:0.75]\n"
              : "set xrange [-1.75:1.75]\nset yrange [-1.55:1.55]\n";
  int arrow = 1;
  for (std::size_t a = 0; a < m; ++a) {
    for (std::size_t b = 0; b < m; ++b) {
      const double p =
          a == b ? 0.0 : net.transition(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b));
      // An arrow wherever a passage exists; a coarse entry of fuzzy memberships may be
      // slightly negative (PCCA+), and is then shown as it is, with the thinnest arrow.
      const double t = net.mfpt(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b));
      if (a == b || !(p > 0.0 || std::isfinite(t))) continue;
      // Each direction on its own side of the centre line, from rim to rim.
      const double dx = x[b] - x[a];
      const double dy = y[b] - y[a];
      const double len = std::hypot(dx, dy);
      const double ux = dx / len, uy = dy / len;
      const double off = 0.07;
      const double nx = -uy * off, ny = ux * off;
      const double x0 = x[a] + ux * r[a] + nx, y0 = y[a] + uy * r[a] + ny;
      const double x1 = x[b] - ux * r[b] + nx, y1 = y[b] - uy * r[b] + ny;
      const double lw = 1.0 + (largest > 0 ? 4.0 * std::max(p, 0.0) / largest : 0.0);
      g += fmt::format(
          "set arrow {} from {},{} to {},{} head filled size screen 0.018,20 lw {:.2f} lc rgb "
          "'#555555'\n",
          arrow++, x0, y0, x1, y1, lw);
      const double lx = x0 + 0.3 * (x1 - x0) + 1.6 * nx, ly = y0 + 0.3 * (y1 - y0) + 2.4 * ny;
      // The text starts on the arrow's side: away from the line whichever way it runs.
      const char* justify = nx > 0.3 * off ? "left" : (nx < -0.3 * off ? "right" : "center");
      g += fmt::format(
          "set label \"{}\\np = {:.3g}\" at {},{} {} noenhanced font 'Sans,10' tc rgb "
          "'#222222'\n",
          time_text(t, u), p, lx, ly, justify);
    }
  }
  const std::string nodes = "'" + (dir / "nodes.dat").string() + "'";
  g += "plot " + nodes +
       " using 1:2:3 with circles fs solid 0.55 border lc rgb '#1b3a8a' lc rgb '#6f9bd1', " +
       nodes + " using 1:2:4 with labels noenhanced font 'Sans,12' tc rgb '#000000'\n";
  return g;
}

}  // namespace trails::report
