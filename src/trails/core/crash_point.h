// Named crash points for crash-safety tests (DuckDB's checkpoint_abort pattern). When the
// environment variable TRAILS_CRASH_AT is "NAME" or "NAME:ITERATION" and a matching point is
// reached, the process kills itself with SIGKILL: no destructors, no flushes, like a power cut.
#pragma once

#include <cstdint>
#include <string_view>

namespace trails::core {

void crash_point(std::string_view name, std::int64_t iteration);

}  // namespace trails::core
