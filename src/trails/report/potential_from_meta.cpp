#include "trails/report/potential_from_meta.h"

namespace trails::report {

std::unique_ptr<engines::builtin::Potential> potential_from_meta(const store::RunMeta& meta) {
  const auto spec = config::builtin_spec_of_run(meta.effective_config);
  return spec ? engines::builtin::make_potential(*spec) : nullptr;
}

double potential_span(const store::RunMeta& meta) {
  const auto spec = config::builtin_spec_of_run(meta.effective_config);
  return 10.0 * (spec ? spec->kT : 1.0);
}

}  // namespace trails::report
