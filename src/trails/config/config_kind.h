// Which command a configuration file is for, told before loading it: a campaign's (`trails run`)
// or a swarm's (`trails swarm`, a top-level `pathgennie:` block; config/swarm_config.h has
// is_swarm_config). Lets each command point at the other instead of listing keys it lacks.
#pragma once

#include <filesystem>

namespace trails::config {

// True when `file` reads as a YAML mapping without a `pathgennie:` block. False for anything
// that does not read (the loader then reports the file's problems).
bool is_campaign_config(const std::filesystem::path& file);

}  // namespace trails::config
