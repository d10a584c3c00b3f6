// Progress output of `trails run`: on a terminal one live line (iteration, walkers, occupancy,
// ETA) rewritten in place; otherwise one plain line per iteration, for logs and batch jobs.
#pragma once

#include <cstdio>

#include "trails/campaign/campaign.h"

namespace trails::app {

class ConsoleProgress final : public campaign::ProgressSink {
 public:
  explicit ConsoleProgress(std::FILE* out);
  void started(const std::vector<std::string>& banner) override;
  void iteration(const campaign::IterationReport& report) override;
  void finished(const campaign::CampaignOutcome& outcome) override;

 private:
  std::FILE* out_;
  bool tty_;
  bool line_open_ = false;
};

}  // namespace trails::app
