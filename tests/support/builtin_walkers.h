// Walkers on the built-in engine, for tests of what runs segments (executors, array tasks,
// workers): the engine configuration they ship to out-of-process workers, walkers of uneven
// lengths (so completion order scrambles) with Trails-MD seeds, and the bitwise comparison of a
// result with the serial reference's. Part of trails_test_support (docs/architecture.md, "Tests").
#pragma once

#include <cstdint>
#include <vector>

#include "trails/config/engine_spec.h"
#include "trails/engines/engine.h"

namespace trails::test_support {

// Müller–Brown, Langevin, dt 1e-4.
config::BuiltinEngineConfig builtin_config();

// n walkers of iteration `iteration` from the engine's default start: task ids 0..n-1, walker w
// runs 200 + 10 w steps at stride 10 with the seed core::walker_seed(42, iteration, w).
std::vector<engines::SegmentTask> walkers(const engines::Engine& engine, int n,
                                          std::int64_t iteration);

// `actual` succeeded with exactly the frames, final state and platform of `expected`.
void expect_same(const engines::SegmentResult& actual, const engines::SegmentResult& expected);

}  // namespace trails::test_support
