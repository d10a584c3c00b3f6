// The extra per-frame datasets of a committed iteration's shard (records.h, FrameObservable;
// docs/file-formats.md): "features" with save_features, "physical_cvs". For readers of a run
// (trails export --trails-md-layout); the campaign never reads them back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "trails/store/records.h"
#include "trails/store/run_store.h"

namespace trails::store {

// /observables/NAME/value of the shard of committed `iteration` (checksum-verified), one row per
// frame in the order of its CVs; nullopt when the shard has no such dataset. InputError for an
// iteration that is not committed, CorruptionError for a damaged shard.
std::optional<FrameObservable> load_observable(const RunStore& store, std::int64_t iteration,
                                               const std::string& name);

}  // namespace trails::store
