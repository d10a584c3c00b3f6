// Private to `trails report` (run_report.h): what one page is made of, gathered once by
// run_report.cpp, and the sections made from it (run_report_sections.cpp,
// run_report_pictures.cpp). Nothing here reads the store or writes a file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/report/analyze/analyze.h"
#include "trails/report/common/msm_builds.h"
#include "trails/store/records.h"

namespace trails::report::detail {

// A file another command drew or wrote into the report's scratch directory, read into memory.
struct DrawnFile {
  std::string producer;  // "trails plot", "trails analyze"
  std::string name;      // file name
  std::string bytes;
};

struct FailedWalker {
  std::int64_t iteration = 0;
  store::WalkerRecord walker;
};

struct ReportInputs {
  std::filesystem::path run_dir;
  nlohmann::json status;  // report::run_status()
  nlohmann::json config;  // the run's result-relevant configuration (RunMeta::config)
  std::vector<CheckedMsmBuild> builds;
  std::vector<FailedWalker> failures;  // every failed walker of the committed iterations
  std::optional<nlohmann::json> convergence_file;  // RUN_DIR/convergence.json (`trails run`)
  std::string convergence_file_error;              // why it could not be read
  std::optional<AnalyzeResult> analysis;           // `trails analyze`, when it had a report
  std::string analysis_error;                      // why it had none
  std::vector<DrawnFile> pictures;                 // every .png, in page order
  std::vector<DrawnFile> tables;                   // every other file the commands wrote
  std::string generated_at;                        // ISO 8601 UTC
  std::string energy;  // the free energies' unit and temperature in words (picture_caption)
};

// The run's engine and the system it integrates, in words: the built-in potential, or the
// molecular inputs (structure, topology, system file, force field), the engine's program or
// platform and its temperature, then the atom count and time step that the engine reported.
// `status`: run_status(); `config`: the run's result-relevant configuration.
std::string engine_description(const nlohmann::json& status, const nlohmann::json& config);

// The whole content of a file (StoreError naming it when it cannot be read).
std::string read_file_bytes(const std::filesystem::path& file);

// The sections, in page order. Every string from the run is escaped (html_page.h).
std::string summary_section(const ReportInputs& in);
std::string pictures_section(const ReportInputs& in);
std::string msm_section(const ReportInputs& in);
std::string analysis_section(const ReportInputs& in);
std::string convergence_section(const ReportInputs& in);
std::string failures_section(const ReportInputs& in);

// Page order of pictures: those of the caption table in its order, then the others by name;
// the producer breaks ties.
void sort_pictures(std::vector<DrawnFile>& pictures);

}  // namespace trails::report::detail
