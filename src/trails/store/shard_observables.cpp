#include "trails/store/shard_observables.h"

#include "trails/store/shard.h"

namespace trails::store {

std::optional<FrameObservable> load_observable(const RunStore& store, std::int64_t iteration,
                                               const std::string& name) {
  store.record_policy(iteration);  // committed, and its shard's checksum verified
  return detail::ShardReader(store.shard_path(iteration)).read_observable(name);
}

}  // namespace trails::store
