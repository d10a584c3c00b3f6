// The pictures of `trails report`: captions by file name and the figures section.
#include <algorithm>
#include <array>
#include <filesystem>
#include <string_view>
#include <tuple>

#include "trails/report/html/html_page.h"
#include "trails/report/html/run_report.h"
#include "trails/report/html/run_report_sections.h"

namespace trails::report {
namespace {

struct KnownPicture {
  std::string_view stem;
  std::string_view title;
  std::string_view caption;
};

// The pictures `trails plot` and `trails analyze` draw (docs/analysis.md, docs/report.md), in
// the order the page shows them.
constexpr std::array<KnownPicture, 13> kKnownPictures = {{
    {"coverage", "Coverage",
     "Every sampled CV point, coloured by the iteration that produced it (colour bar). Built-in "
     "2-D potentials are drawn over the potential's contours (grey). Regions without points have "
     "not been reached."},
    {"occupancy", "Occupancy and grid resolution",
     "Occupied bins of the coverage grid per iteration (solid, left axis) and the grid's bins per "
     "axis (dashed, right axis). A solid line that flattens means exploration is saturating."},
    {"fes", "Free-energy surface",
     "F = -kT ln p on the CV grid in {energy}, minimum 0. Low values are the likely states; "
     "blank bins were never visited. A weighted-ensemble run's frames carry their walkers' "
     "weights (as WESTPA's w_pdist), so the surface is the ensemble's; other runs' frames are "
     "counted."},
    {"fes_msm", "Free-energy surface from the MSM",
     "F = -kT ln p on the CV grid in {energy}, each frame weighted by the stationary probability "
     "of its microstate in the latest MSM build. Compare with the histogram surface: where they "
     "differ, "
     "the sampling is not yet at equilibrium."},
    {"fes_histogram", "Histogram free-energy surface (trails analyze, no MSM model)",
     "F = -kT ln p of the sampled frames on the CV grid in {energy}; the run has no MSM model, so "
     "this is analyze's report. Adaptive sampling biases the histogram: trails reweight corrects "
     "for it (a weighted ensemble's frames carry their walkers' weights already)."},
    {"its", "Implied timescales of the latest MSM build",
     "Implied timescales against the lag time. Where the curves level off the model is Markovian; "
     "the lag used should lie in that flat part."},
    {"timescales", "Timescales over the MSM builds",
     "The slowest timescales (and VAMP-2) of every in-loop MSM build against its iteration. "
     "Converged sampling shows them settling on a plateau."},
    {"network", "MSM network",
     "PCCA+ metastable sets with their populations, joined by the coarse transitions (or mean "
     "first-passage times) between them."},
    {"convergence", "Convergence over iterations",
     "Exploration fraction, occupied bins and the slowest timescale against the iteration. "
     "Curves that have gone flat mean more sampling adds little."},
    {"flux_convergence", "Weighted-ensemble flux and MFPT",
     "Top: the weight recycled into the target in each iteration, with the mean over the "
     "steady-state tail (the first half dropped). Bottom: the MFPT the run estimated after each "
     "iteration (Hill relation, τ / tail-mean flux) and the value it converges to. Trust the rate "
     "once the running estimate lies flat on that line; a curve still falling or rising needs "
     "more iterations."},
    {"convergence_report", "MSM convergence report",
     "Four panels of trails analyze: implied timescales against lag, the timescales over the "
     "builds, VAMP-2 over the builds, and the free-energy surface of the first two CVs in "
     "{energy}."},
    {"path", "Path",
     "A chosen pathway between two states drawn on the CV space or the free-energy surface."},
    {"lineage", "Lineage",
     "The parent links of the sampled frames: which frame each walker segment started from."},
}};

std::size_t rank(const std::string& name) {
  const auto stem = std::filesystem::path(name).stem().string();
  for (std::size_t i = 0; i < kKnownPictures.size(); ++i) {
    if (kKnownPictures[i].stem == stem) return i;
  }
  return kKnownPictures.size();
}

}  // namespace

PictureCaption picture_caption(const std::string& file_name, const std::string& energy) {
  const std::size_t i = rank(file_name);
  if (i < kKnownPictures.size()) {
    std::string caption(kKnownPictures[i].caption);
    const auto at = caption.find("{energy}");
    if (at != std::string::npos) {
      caption.replace(at, 8, energy.empty() ? "the energy unit stated in the picture" : energy);
    }
    return {std::string(kKnownPictures[i].title), caption};
  }
  return {file_name,
          "A picture this page has no description for yet; the command that drew it documents "
          "how to read it."};
}

namespace detail {

void sort_pictures(std::vector<DrawnFile>& pictures) {
  std::stable_sort(pictures.begin(), pictures.end(), [](const DrawnFile& a, const DrawnFile& b) {
    return std::forward_as_tuple(rank(a.name), a.name, a.producer) <
           std::forward_as_tuple(rank(b.name), b.name, b.producer);
  });
}

std::string pictures_section(const ReportInputs& in) {
  std::string body;
  if (in.pictures.empty()) body += html::paragraph("No pictures were drawn.", "note");
  for (const auto& p : in.pictures) {
    const auto c = picture_caption(p.name, in.energy);
    body += html::figure(p.bytes, p.name, c.title + " (" + p.producer + ": " + p.name + ").",
                         c.caption);
  }
  return html::section("pictures", "Pictures", body);
}

}  // namespace detail
}  // namespace trails::report
