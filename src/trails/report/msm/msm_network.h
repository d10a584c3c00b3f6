// The MSM network of `trails plot` (network.png, network.json, network.txt): the PCCA+
// metastable sets of a build (msm.n_metastable) as nodes sized by population, the coarse
// transition matrix and the mean first passage times between the crisp sets as edges, and the
// same numbers as a table (docs/report.md, "MSM network").
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "trails/msm/msm_build_record.h"
#include "trails/report/common/time_axis.h"

namespace trails::report {

struct CoarseNetwork {
  std::optional<std::int64_t> iteration;  // of the in-loop build; none for `trails msm`
  int lag = 0;                            // frames
  std::vector<double> populations;        // sum of pi over each crisp set
  std::vector<int> microstates;           // active microstates per crisp set
  Eigen::MatrixXd transition;             // m x m coarse transition matrix, per lag
  Eigen::MatrixXd mfpt;                   // m x m, frames; 0 on the diagonal, NaN where unknown
};

// From a build with PCCA+ memberships; nullopt when the build has none (or no model).
// Coarse matrix: analysis::coarse_transition_matrix of the stored memberships; MFPTs: between
// the crisp sets (the stored assignments) on the build's transition matrix.
std::optional<CoarseNetwork> coarse_network(const msm::MsmBuildRecord& build);

// From the "pcca" block of a `trails msm --pcca` model (msm_report): the same sets, coarse
// matrix and MFPTs as that JSON, without a build iteration.
CoarseNetwork coarse_network_of_model(const nlohmann::json& model);

// The JSON document (network.json) and the text table (network.txt); times in frames and in
// the readable unit of `time`.
nlohmann::json network_json(const CoarseNetwork& net, const TimeAxis& time);
std::string network_table(const CoarseNetwork& net, const TimeAxis& time);

// The picture's height for a width of 900 (two sets side by side need less).
int network_picture_height(const CoarseNetwork& net);
// gnuplot commands (no terminal) drawing the network; its layout files go to `dir`.
std::string network_plot(const CoarseNetwork& net, const TimeAxis& time,
                         const std::filesystem::path& dir);

}  // namespace trails::report
