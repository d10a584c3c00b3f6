// For tests only (docs/reliability.md, "Testing"): the environment variable
// TRAILS_TEST_FAULT=KIND:ITERATION:WALKER makes the built-in engine misbehave when it runs that
// walker of that iteration, so the process executor's crash, timeout and heartbeat handling can
// be tested with real signals. KIND: segv (raise SIGSEGV), abort (std::abort), hang (sleep for
// ever; the worker's heartbeat thread keeps beating), stop (SIGSTOP the whole process, so the
// heartbeats stop too), throw (an EngineError out of the engine: a walker failure that leaves
// the worker well, for the MPI backend, where a dying rank ends the job). Each first writes one
// line to stderr naming the fault. With TRAILS_TEST_FAULT_ONCE=PATH only the first process to
// create PATH misbehaves (a walker run again succeeds: scheduler retries). Not a feature.
#pragma once

#include "trails/engines/segment.h"

namespace trails::engines::builtin {

// Returns at once unless TRAILS_TEST_FAULT names this task's iteration and walker. Throws
// ConfigError for a value that is not KIND:ITERATION:WALKER.
void inject_test_fault(const SegmentTask& task);

}  // namespace trails::engines::builtin
