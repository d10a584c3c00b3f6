// The executor conformance body (../backend_conformance.h) over the SLURM array executor on the
// private cluster of slurm_main.cpp, made by the one backend table from an ExecutionSpec: the
// serial reference's bytes in task order, the streaming contract, an engine's refusal as a
// Failed result. Eight walkers per array task (job packing, so a batch of 13 is two array
// elements and each array task starts one `trails worker`), the whole batch in flight, as a
// campaign runs it.
#include "../backend_conformance.h"
#include "slurm_test_support.h"

namespace trails::exec::testing {
namespace {

config::ExecutionSpec slurm_spec() {
  config::ExecutionSpec s;
  s.backend = config::ExecutionBackend::Slurm;
  s.scheduler = quick_keys();
  s.scheduler.walkers_per_task = 8;
  s.worker_argv = {TRAILS_BINARY, "worker"};
  s.max_in_flight = 64;
  return s;
}

INSTANTIATE_TEST_SUITE_P(Slurm, BackendConformance,
                         ::testing::Values(BackendKind{"arrays_packed8", slurm_spec(), 64, 64}),
                         backend_name);

}  // namespace
}  // namespace trails::exec::testing
