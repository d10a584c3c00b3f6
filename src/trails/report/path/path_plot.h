// The picture of `trails path --plot`: every committed CV point (grey, thinned), each path as a
// line from its start (circle) through its frames to its end (triangle) with the lowest common
// ancestor marked (diamond); over the potential's contours for a built-in 2-D run. A 1-D run is
// drawn as a lineage tree: CV value against iteration (each frame at iteration + its fraction
// of the segment). More than two CVs: the first two. Axis labels name the CVs and their units
// where the run's configuration gives them (docs/analysis.md, "trails path").
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "trails/report/common/run_frames.h"
#include "trails/store/run_store.h"

namespace trails::report {

struct PlottedPath {
  std::string label;
  std::vector<std::size_t> rows;  // RunFrames rows, start … end
  std::size_t lca_row = 0;
};

// Draws into `png` (a temporary file the caller stages and checks); runs gnuplot.
void draw_path_plot(const store::RunMeta& meta, const RunFrames& frames,
                    const std::vector<PlottedPath>& paths, const std::filesystem::path& png);

}  // namespace trails::report
