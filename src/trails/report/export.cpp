#include "trails/report/export.h"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/core/output_target.h"
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
    core::write_output(targets.at(next++), out);
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
    core::write_output(targets.at(next++), out);
  }
}

}  // namespace trails::report
