// `trails export`: the run's CV points and lineage as CSV, numbers at round-trip precision
// (%.17g) so that two runs can be compared byte for byte. Reads the run store only.
//   cvs:     iteration,walker,frame,cv_0,…,cv_{d-1}   (walker = raw walker index; with
//            cv_names the run's recorded CV names instead of cv_k: cv_columns.h)
//   lineage: key,parent   (keys "iteration:walker:frame"; parent empty for a root frame)
// `selection` keeps the frames of one iteration and/or walker (export_segments.h).
#pragma once

#include <filesystem>
#include <optional>

#include "trails/report/export/export_segments.h"

namespace trails::report {

struct ExportRequest {
  std::filesystem::path run_dir;
  std::optional<std::filesystem::path> cvs_csv;
  std::optional<std::filesystem::path> lineage_csv;
  FrameSelection selection;
  bool cv_names = false;
};

void export_run(const ExportRequest& request);

}  // namespace trails::report
