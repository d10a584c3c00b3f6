// trails export --model and trails project (space_model_export.h).
#include "trails/report/export/space_model_export.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "trails/core/error.h"
#include "trails/core/fs.h"
#include "trails/core/npy.h"
#include "trails/report/export/trajectory_frames.h"
#include "trails/spaces/stored_space_model.h"

namespace trails::report {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// Rows of numbers: .npy (2-D, float) or CSV (an optional header line that is not numeric).
std::vector<double> read_rows(const fs::path& file, int width) {
  std::vector<double> rows;
  if (file.extension() == ".npy") {
    const auto a = core::read_npy(file);
    if (a.kind != 'f' || a.shape.size() != 2 || a.shape[1] != width) {
      throw core::InputError(
          fmt::format("{}: expected a 2-D float array of {} feature columns, found {} of shape {}",
                      file.string(), width, a.descr, a.shape_text));
    }
    for (std::int64_t i = 0; i < a.n_elements(); ++i) rows.push_back(a.float_at(i));
    return rows;
  }
  std::ifstream in(file);
  if (!in) throw core::InputError(file.string() + ": cannot be read");
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    if (line.empty()) continue;
    std::vector<double> v;
    std::stringstream ss(line);
    std::string cell;
    bool numeric = true;
    while (std::getline(ss, cell, ',')) {
      try {
        std::size_t used = 0;
        v.push_back(std::stod(cell, &used));
        if (cell.find_first_not_of(" \t\r", used) != std::string::npos) numeric = false;
      } catch (const std::exception&) {
        numeric = false;
      }
    }
    if (!numeric) {
      if (no == 1) continue;  // a header
      throw core::InputError(fmt::format("{}:{}: not a row of numbers", file.string(), no));
    }
    if (static_cast<int>(v.size()) != width) {
      throw core::InputError(fmt::format("{}:{}: {} values, the model reads {} feature columns",
                                         file.string(), no, v.size(), width));
    }
    rows.insert(rows.end(), v.begin(), v.end());
  }
  return rows;
}

}  // namespace

fs::path model_sidecar(const fs::path& pt) {
  fs::path s = pt;
  s.replace_extension(".json");
  return s;
}

std::int64_t export_space_model(const SpaceModelRequest& request, const fs::path& pt) {
  const auto stored = spaces::load_stored_space_model(request.run_dir, request.iteration);
  const spaces::StoredSpaceModel& m = *stored;
  m.model->export_torchscript(pt);  // a linear space throws before anything is written
  const json& scaling = m.space.at("model");
  json sidecar = {{"format", "trails-space-model-input"},
                  {"version", 1},
                  {"space_mode", m.space.at("mode")},
                  {"iteration", m.iteration},
                  {"trained_at", m.element->at("trained_at")},
                  {"applied_at", m.element->at("applied_at")},
                  {"feature_type", m.space.at("feature_type")},
                  {"n_features", scaling.at("n_features")},
                  {"columns", scaling.at("columns")},
                  {"min_values", scaling.at("min_values")},
                  {"scale", scaling.at("scale")},
                  {"input",
                   "forward(x') with x' = (x[:, columns] - min_values) / scale, x the run's "
                   "feature rows (feature_type); output columns: cv_names"},
                  {"cv_names", m.cv_names},
                  {"training", m.element->at("training")}};
  core::write_file_atomic(model_sidecar(pt), sidecar.dump(2) + "\n");
  return m.iteration;
}

std::int64_t project_to_csv(const SpaceModelRequest& request, const fs::path& input,
                            const fs::path& csv_out) {
  const auto m = spaces::load_stored_space_model(request.run_dir, request.iteration);
  std::vector<double> cvs;
  if (is_trajectory_file(input)) {
    spaces::rebuild_run_features(*m, request.topology);
    const TrajectoryFrames t = read_trajectory_frames(input, m->n_atoms, m->spatial_dim);
    spaces::make_stored_model_projection(m)->project(t.positions, t.n_frames, t.boxes, cvs);
  } else {
    cvs = m->model->project(read_rows(input, m->model->n_features()), 0);
  }
  const int k = m->model->dim();
  std::string out;
  for (std::size_t j = 0; j < m->cv_names.size(); ++j) out += (j ? "," : "") + m->cv_names[j];
  out += "\n";
  for (std::size_t r = 0; r < cvs.size(); r += static_cast<std::size_t>(k)) {
    for (int j = 0; j < k; ++j) out += fmt::format("{}{:.17g}", j ? "," : "", cvs[r + j]);
    out += "\n";
  }
  core::write_file_atomic(csv_out, out);
  return static_cast<std::int64_t>(cvs.size()) / k;
}

}  // namespace trails::report
