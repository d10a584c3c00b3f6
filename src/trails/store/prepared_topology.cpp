#include "trails/store/prepared_topology.h"

#include <algorithm>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "trails/core/error.h"

namespace trails::store {

std::filesystem::path prepared_topology(const std::filesystem::path& run_dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(run_dir / "prepared", ec)) {
    if (fs::is_regular_file(entry.path() / "topology.pdb")) {
      found.push_back(entry.path() / "topology.pdb");
    }
  }
  if (found.empty()) {
    throw core::InputError(run_dir.string() +
                           " has no prepared/<digest>/topology.pdb; only OpenMM runs that "
                           "prepared a topology have one");
  }
  if (found.size() > 1) {
    std::sort(found.begin(), found.end());
    throw core::InputError(
        fmt::format("{} holds {} prepared systems ({} and others); remove the stale ones so the "
                    "run's topology is unambiguous",
                    run_dir.string(), found.size(), found[0].string()));
  }
  return found[0];
}

}  // namespace trails::store
