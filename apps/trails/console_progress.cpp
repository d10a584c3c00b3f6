#include "console_progress.h"

#include <unistd.h>

#include <cmath>
#include <system_error>

#include <fmt/format.h>

namespace trails::app {
namespace {

// Writes with `print`, unless stdout is gone: once a write fails (EPIPE after `| head`, SIGPIPE
// being ignored by `trails run`), progress stops and the campaign carries on (docs/reliability.md).
template <typename Print>
void emit(std::FILE* out, Print&& print) {
  if (std::ferror(out) != 0) return;
  try {
    print();
    std::fflush(out);
  } catch (const std::system_error&) {  // fmt reports the failed write; ferror() stays set
  }
}

}  // namespace

ConsoleProgress::ConsoleProgress(std::FILE* out) : out_(out), tty_(::isatty(::fileno(out)) != 0) {}

void ConsoleProgress::started(const std::vector<std::string>& banner) {
  emit(out_, [&] {
    for (const auto& line : banner) fmt::print(out_, "{}\n", line);
  });
}

// Iterations are numbered from 0 everywhere (store, errors, exports; docs/reliability.md); the
// count in parentheses is how many of the target are done.
void ConsoleProgress::iteration(const campaign::IterationReport& report) {
  const auto& r = report.summary;
  const double pct = r.total_bins > 0 ? 100.0 * static_cast<double>(r.occupied_bins) /
                                            static_cast<double>(r.total_bins)
                                      : 0.0;
  const std::string line = fmt::format(
      "iteration {} ({}/{})  walkers {}/{}  frames {}  occupied {}/{} ({:.1f} %)  MD {:.3f} s  "
      "analysis {:.3f} s  ETA {}",
      r.iteration, r.iteration + 1, report.target_iterations, r.successful_walkers, report.walkers,
      r.cumulative_frames, r.occupied_bins, r.total_bins, pct, r.runner_s, r.analysis_s,
      duration_text(report.eta_s));
  show(line);
}

void ConsoleProgress::walkers(const store::WalkerProgress& p) {
  // A terminal at most 10 times a second; a log only 30 s into an iteration, then every 30 s.
  const auto interval = tty_ ? std::chrono::milliseconds(100) : std::chrono::milliseconds(30000);
  const auto now = std::chrono::steady_clock::now();
  if (p.done == 0 && !tty_) written_ = now;
  if (p.done != 0 && (p.done == p.walkers || now - written_ < interval)) return;
  written_ = now;
  const std::string line = fmt::format(
      "iteration {}  walkers {}/{} done ({} failed), {} running, {} queued  {:.0f} s  ETA {}",
      p.iteration, p.done, p.walkers, p.failed, p.running, p.queued, p.elapsed_s,
      p.eta_s ? duration_text(*p.eta_s) : std::string("-"));
  show(line);
}

void ConsoleProgress::show(const std::string& line) {
  emit(out_, [&] {
    if (tty_) {
      fmt::print(out_, "\r\033[K{}", line);
      line_open_ = true;
    } else {
      fmt::print(out_, "{}\n", line);
    }
  });
}

void ConsoleProgress::finished(const campaign::CampaignOutcome& o) {
  emit(out_, [&] {
    if (line_open_) fmt::print(out_, "\n");
    fmt::print(out_, "Completed {} iteration(s) ({} committed in total).\n", o.ran_now,
               o.completed_iterations);
    if (o.converged) fmt::print(out_, "Converged: {}\n", o.reason);
  });
}

}  // namespace trails::app
