// `trails path`: lineage-connected paths between two points of a run's CV space
// (docs/analysis.md, "trails path"). For each pair of targets: the committed frames nearest to
// them (Euclidean in CV space, ties to the earliest frame in ledger order), the lineage walk
// through the ledger's parent links, their lowest common ancestor, and the path start → LCA →
// end; written as metadata JSON and, for molecular (OpenMM) runs, as one trajectory of the
// path's frames. Batch mode (a pairs file) writes one pair of files per path plus
// paths_summary.json. Reads the run store only (committed iterations; safe while a campaign
// writes). Every output is checked before the run is read and all are committed together:
// a failure writes nothing.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace trails::report {

struct PathEnds {
  std::string name;  // batch: the pairs file's name, or empty
  std::vector<double> start, end;
  std::string start_option = "--start", end_option = "--end";  // for messages
};

struct PathRequest {
  std::filesystem::path run_dir;
  std::vector<PathEnds> pairs;  // one (single mode) or the pairs file's (batch mode)
  // Single mode.
  std::optional<std::filesystem::path> output;    // trajectory (.xtc/.dcd/.pdb)
  std::optional<std::filesystem::path> metadata;  // default OUTPUT.json, or path.json
  // Batch mode.
  std::optional<std::filesystem::path> pairs_file;  // an input: never overwritten
  std::optional<std::filesystem::path> output_dir;
  std::string format = "xtc";  // batch trajectories: xtc, dcd or pdb
  // Picture of every path over the CV points (and the potential of a built-in 2-D run).
  std::optional<std::filesystem::path> plot;
};

// The pairs of a --pairs file: a JSON list of {"name"?, "start": [..], "end": [..]}, or a CSV
// whose header names start,end (1-D) or start_0..start_{d-1},end_0..end_{d-1}, with an
// optional name column. InputError naming the file and entry when it is malformed.
std::vector<PathEnds> read_pairs_file(const std::filesystem::path& file);

// Runs the request; returns what to print (one line per path and per file written).
std::string find_paths(const PathRequest& request);

}  // namespace trails::report
