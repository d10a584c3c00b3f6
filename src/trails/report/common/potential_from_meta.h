// Rebuilds the built-in potential of a run from the configuration stored in its ledger, so that
// plots can draw the energy landscape without the original config file. Nullptr for other engines.
#pragma once

#include <filesystem>
#include <memory>

#include "trails/engines/builtin/potential.h"
#include "trails/store/run_store.h"

namespace trails::report {

std::unique_ptr<engines::builtin::Potential> potential_from_meta(const store::RunMeta& meta);
// Energy range worth contouring above the minimum: 10 kT of the run.
double potential_span(const store::RunMeta& meta);
// The potential's energy on a 121-point regular grid per axis over its plot box, written to
// `file` as gnuplot data ("x V" rows for 1-D; "x y V" rows, a blank line per x, for 2-D): for
// contours or a curve. Returns the lowest value. StoreError when the file cannot be written.
double write_potential_grid(const engines::builtin::Potential& pot,
                            const std::filesystem::path& file);

}  // namespace trails::report
