#include "trails/report/export.h"

#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/core/fs.h"
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
  const auto store = store::RunStore::open(request.run_dir, store::RunStore::Mode::ReadOnly);
  const auto records = store.load_iterations();

  if (request.cvs_csv) {
    const int d = records.empty() ? 0 : records.front().cv_dim;
    std::string out = "iteration,walker,frame";
    for (int k = 0; k < d; ++k) out += ",cv_" + std::to_string(k);
    out += '\n';
    for (const auto& rec : records) {
      std::size_t row = 0;
      for (const auto& w : rec.walkers) {
        for (std::int64_t f = 0; f < w.n_frames; ++f, ++row) {
          out += fmt::format("{},{},{}", rec.iteration, w.walker, f);
          for (int k = 0; k < rec.cv_dim; ++k) {
            out += ',';
            append_number(out, rec.cvs[row * rec.cv_dim + k]);
          }
          out += '\n';
        }
      }
    }
    core::write_file_atomic(*request.cvs_csv, out);
  }

  if (request.lineage_csv) {
    std::string out = "key,parent\n";
    for (const auto& rec : records) {
      for (const auto& w : rec.walkers) {
        for (std::int64_t f = 0; f < w.n_frames; ++f) {
          const core::FrameKey key{rec.iteration, w.walker, f};
          out += key.to_string() + ',';
          if (f > 0) {
            out += core::FrameKey{rec.iteration, w.walker, f - 1}.to_string();
          } else if (w.parent) {
            out += w.parent->to_string();
          }
          out += '\n';
        }
      }
    }
    core::write_file_atomic(*request.lineage_csv, out);
  }
}

}  // namespace trails::report
