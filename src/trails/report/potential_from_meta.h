// Rebuilds the built-in potential of a run from the configuration stored in its ledger, so that
// plots can draw the energy landscape without the original config file. Nullptr for other engines.
#pragma once

#include <memory>

#include "trails/engines/builtin/potential.h"
#include "trails/store/run_store.h"

namespace trails::report {

std::unique_ptr<engines::builtin::Potential> potential_from_meta(const store::RunMeta& meta);
// Energy range worth contouring above the minimum: 10 kT of the run.
double potential_span(const store::RunMeta& meta);

}  // namespace trails::report
