// Cell areas by half-plane clipping: a cell starts as a rectangle known to contain it (the box;
// on a torus the box-sized rectangle centred on the centre, the region nearer to it than to its
// own images) and is clipped by the perpendicular bisector with each other centre (each image,
// on a torus) in order of distance, until the next centre is farther than twice the cell's
// radius: its bisector cannot cut the cell any more.
#include "trails/analysis/voronoi_cells.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "trails/analysis/clustering.h"
#include "trails/analysis/kd_tree.h"
#include "trails/core/error.h"

namespace trails::analysis {
namespace {

using Vertex = std::array<double, 2>;
using Polygon = std::vector<Vertex>;

// Keeps the part of `poly` where (x - mid) . normal <= 0 (Sutherland–Hodgman, one edge).
Polygon clip(const Polygon& poly, const Vertex& mid, const Vertex& normal) {
  const auto side = [&](const Vertex& v) {
    return (v[0] - mid[0]) * normal[0] + (v[1] - mid[1]) * normal[1];
  };
  Polygon out;
  out.reserve(poly.size() + 1);
  for (std::size_t i = 0; i < poly.size(); ++i) {
    const Vertex& a = poly[i];
    const Vertex& b = poly[(i + 1) % poly.size()];
    const double sa = side(a);
    const double sb = side(b);
    if (sa <= 0.0) out.push_back(a);
    if ((sa < 0.0 && sb > 0.0) || (sa > 0.0 && sb < 0.0)) {
      const double t = sa / (sa - sb);
      out.push_back({a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])});
    }
  }
  return out;
}

double area(const Polygon& poly) {
  double twice = 0.0;
  for (std::size_t i = 0; i < poly.size(); ++i) {
    const Vertex& a = poly[i];
    const Vertex& b = poly[(i + 1) % poly.size()];
    twice += a[0] * b[1] - b[0] * a[1];
  }
  return std::abs(twice) / 2.0;
}

double radius2(const Polygon& poly, const Vertex& c) {
  double r2 = 0.0;
  for (const Vertex& v : poly) {
    r2 = std::max(r2, (v[0] - c[0]) * (v[0] - c[0]) + (v[1] - c[1]) * (v[1] - c[1]));
  }
  return r2;
}

std::size_t centre_count(std::span<const double> centres, const VoronoiBox& box) {
  if (centres.empty() || centres.size() % 2 != 0) {
    throw core::InputError("Voronoi cells: " + std::to_string(centres.size()) +
                           " values are not a non-empty set of 2-D centres");
  }
  if (!(box.hi[0] > box.lo[0] && box.hi[1] > box.lo[1])) {
    throw core::InputError("Voronoi cells: the box needs max > min on both axes");
  }
  return centres.size() / 2;
}

// The candidate sites of the clipping: the centres, or on a torus their 3 x 3 images
// (image s of centre c at s * k + c; s = 0 is the centre itself).
std::vector<double> sites(std::span<const double> centres, const VoronoiBox& box) {
  if (!box.periodic) return {centres.begin(), centres.end()};
  const double lx = box.hi[0] - box.lo[0];
  const double ly = box.hi[1] - box.lo[1];
  constexpr int kShift[9][2] = {{0, 0}, {-1, -1}, {-1, 0}, {-1, 1}, {0, -1},
                                {0, 1}, {1, -1},  {1, 0},  {1, 1}};
  std::vector<double> out;
  out.reserve(centres.size() * 9);
  for (const auto& s : kShift) {
    for (std::size_t i = 0; i < centres.size(); i += 2) {
      out.push_back(centres[i] + s[0] * lx);
      out.push_back(centres[i + 1] + s[1] * ly);
    }
  }
  return out;
}

}  // namespace

void wrap_into_box(const VoronoiBox& box, std::span<double> p) {
  if (!box.periodic) return;
  for (std::size_t a = 0; a < 2; ++a) {
    const double l = box.hi[a] - box.lo[a];
    double x = std::fmod(p[a] - box.lo[a], l);
    if (x < 0.0) x += l;
    if (x >= l) x = 0.0;  // fmod of a tiny negative number rounds up to l
    p[a] = box.lo[a] + x;
  }
}

double box_dist2(const VoronoiBox& box, const double* a, const double* b) {
  double s = 0.0;
  for (std::size_t k = 0; k < 2; ++k) {
    double d = a[k] - b[k];
    if (box.periodic) {
      const double l = box.hi[k] - box.lo[k];
      d -= l * std::round(d / l);
    }
    s += d * d;
  }
  return s;
}

std::vector<int> voronoi_assign(std::span<const double> centres, std::span<const double> points,
                                const VoronoiBox& box) {
  const std::size_t k = centre_count(centres, box);
  TRAILS_CHECK(points.size() % 2 == 0, "voronoi_assign: points are not 2-D");
  const std::vector<double> s = sites(centres, box);
  // The nearest image among the 3 x 3 is the minimum image for points inside the box.
  std::vector<int> labels =
      assign(points_view(s, static_cast<Eigen::Index>(s.size() / 2), 2),
             points_view(points, static_cast<Eigen::Index>(points.size() / 2), 2), 0);
  for (int& l : labels) l = static_cast<int>(static_cast<std::size_t>(l) % k);
  return labels;
}

std::vector<double> voronoi_cell_areas(std::span<const double> centres, const VoronoiBox& box) {
  const std::size_t k = centre_count(centres, box);
  const std::vector<double> s = sites(centres, box);
  const KdTree tree(s, 2);
  const double lx = box.hi[0] - box.lo[0];
  const double ly = box.hi[1] - box.lo[1];
  std::vector<double> areas(k, 0.0);
  for (std::size_t c = 0; c < k; ++c) {
    const Vertex pc{centres[2 * c], centres[2 * c + 1]};
    const Vertex lo = box.periodic ? Vertex{pc[0] - lx / 2, pc[1] - ly / 2} : box.lo;
    const Vertex hi = box.periodic ? Vertex{pc[0] + lx / 2, pc[1] + ly / 2} : box.hi;
    Polygon poly{{lo[0], lo[1]}, {hi[0], lo[1]}, {hi[0], hi[1]}, {lo[0], hi[1]}};
    double r2 = radius2(poly, pc);
    bool done = false;
    std::size_t seen = 0;
    for (int want = 16; !done && seen < s.size() / 2; want *= 2) {
      const auto near = tree.nearest(pc, want);  // a prefix of every larger query
      for (std::size_t i = seen; i < near.size() && !done; ++i) {
        const auto& nb = near[i];
        if (nb.dist2 > 4.0 * r2) {  // its bisector is farther than every vertex
          done = true;
          break;
        }
        const auto owner = static_cast<std::size_t>(nb.index) % k;
        if (nb.dist2 == 0.0) {
          if (owner < c) {  // a coinciding lower centre owns the cell
            poly.clear();
            done = true;
          }
          continue;
        }
        const double* q = s.data() + 2 * static_cast<std::size_t>(nb.index);
        poly = clip(poly, {(pc[0] + q[0]) / 2, (pc[1] + q[1]) / 2}, {q[0] - pc[0], q[1] - pc[1]});
        if (poly.empty()) done = true;
        r2 = radius2(poly, pc);
      }
      seen = near.size();
    }
    areas[c] = poly.size() >= 3 ? area(poly) : 0.0;
  }
  return areas;
}

}  // namespace trails::analysis
