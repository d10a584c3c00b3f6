#include "trails/report/export/export.h"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/core/output_target.h"
#include "trails/report/common/cv_columns.h"
#include "trails/store/run_store.h"

namespace trails::report {
namespace {

void append_number(std::string& out, double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  out += buf;
}

}  // namespace

void export_run(const ExportRequest& request) {
  // Every output is checked before the run is read (docs/reliability.md#inputs-and-outputs).
  std::vector<std::pair<std::string, std::filesystem::path>> named;
  if (request.cvs_csv) named.emplace_back("--cvs", *request.cvs_csv);
  if (request.lineage_csv) named.emplace_back("--lineage", *request.lineage_csv);
  const auto targets = core::check_outputs(named);
  std::size_t next = 0;
  const auto store = store::RunStore::open(request.run_dir, store::RunStore::Mode::ReadOnly);
  const auto records = store.load_iterations();
  const auto segments = select_segments(records, request.selection, request.run_dir);

  if (request.cvs_csv) {
    const int d = records.empty() ? 0 : records.front().cv_dim;
    std::string out = "iteration,walker,frame";
    for (const auto& name :
         request.cv_names ? recorded_cv_names(store.meta(), d) : stable_cv_names(d)) {
      out += ',' + name;
    }
    out += '\n';
    for (const auto& s : segments) {
      const auto& rec = *s.record;
      for (std::int64_t f = 0; f < s.walker->n_frames; ++f) {
        out += fmt::format("{},{},{}", rec.iteration, s.walker->walker, f);
        const std::size_t row = s.first_row + static_cast<std::size_t>(f);
        for (int k = 0; k < rec.cv_dim; ++k) {
          out += ',';
          append_number(out, rec.cvs[row * rec.cv_dim + k]);
        }
        out += '\n';
      }
    }
    core::write_output(targets.at(next++), out);
  }

  if (request.lineage_csv) {
    std::string out = "key,parent\n";
    for (const auto& s : segments) {
      const auto& w = *s.walker;
      for (std::int64_t f = 0; f < w.n_frames; ++f) {
        const core::FrameKey key{s.record->iteration, w.walker, f};
        out += key.to_string() + ',';
        if (f > 0) {
          out += core::FrameKey{s.record->iteration, w.walker, f - 1}.to_string();
        } else if (w.parent) {
          out += w.parent->to_string();
        }
        out += '\n';
      }
    }
    core::write_output(targets.at(next++), out);
  }
}

}  // namespace trails::report
