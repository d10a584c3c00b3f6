// Reads and validates a Trails(-MD) campaign YAML file. Strict: unknown keys, wrong types,
// out-of-range values and cross-field violations are all collected and thrown together as one
// ConfigError whose message lists every problem as "FILE:LINE:COL: key.path: what to do".
// Reads only; creates and writes nothing.
#pragma once

#include <filesystem>

#include "trails/config/campaign_config.h"

namespace trails::config {

CampaignConfig load_campaign_config(const std::filesystem::path& file);

}  // namespace trails::config
