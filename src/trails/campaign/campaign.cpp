#include "trails/campaign/campaign.h"

#include "trails/campaign/campaign_driver.h"

namespace trails::campaign {

CampaignOutcome run_campaign(const config::CampaignConfig& config, const RunOptions& options,
                             ProgressSink& progress) {
  CampaignDriver driver(config, options, progress);
  return driver.run();
}

}  // namespace trails::campaign
