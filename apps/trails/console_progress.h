// Progress output of `trails run`: on a terminal one live line (iteration, walkers, occupancy,
// ETA) rewritten in place; otherwise one plain line per iteration, for logs and batch jobs.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include "duration_text.h"
#include "trails/campaign/campaign.h"

namespace trails::app {

class ConsoleProgress final : public campaign::ProgressSink {
 public:
  explicit ConsoleProgress(std::FILE* out);
  void started(const std::vector<std::string>& banner) override;
  void iteration(const campaign::IterationReport& report) override;
  // Inside an iteration: rewritten in place on a terminal; in a log one line every 30 s, so a
  // long iteration shows it advances without a line per walker.
  void walkers(const store::WalkerProgress& progress) override;
  void finished(const campaign::CampaignOutcome& outcome) override;

 private:
  void show(const std::string& line);  // in place on a terminal, else one line

  std::FILE* out_;
  bool tty_;
  bool line_open_ = false;
  std::chrono::steady_clock::time_point written_{};  // the last walkers line
};

}  // namespace trails::app
