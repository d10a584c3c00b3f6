// mpi_slots and make_mpi_executor (mpi_executor.h): an MpiRank is the EngineInstance of one slot
// of a thread pool, standing for its worker rank.
#include "trails/exec/mpi/mpi_executor.h"

#include <fmt/format.h>

#include <map>

#include "trails/core/error.h"
#include "trails/exec/local/binding_check.h"
#include "trails/exec/mpi/mpi_channel.h"
#include "trails/exec/wire/worker_link.h"

namespace trails::exec {
namespace {

using engines::SegmentResult;
using engines::SegmentTask;

// Holds the world's worker ranks for one executor; the ranks share it and the last one gone
// (after its Shutdown was sent) gives them back.
class Claim {
 public:
  explicit Claim(MpiWorld& world) : world_(world) { world_.claim_workers(); }
  ~Claim() { world_.release_workers(); }
  Claim(const Claim&) = delete;
  Claim& operator=(const Claim&) = delete;

 private:
  MpiWorld& world_;
};

class MpiRank final : public engines::EngineInstance {
 public:
  MpiRank(std::shared_ptr<const WorkerOptions> options, std::shared_ptr<Claim> claim,
          engines::Slot slot, int rank, std::string host)
      : options_(std::move(options)),
        claim_(std::move(claim)),
        slot_(slot),
        rank_(rank),
        host_(std::move(host)),
        channel_(rank) {
    const std::optional<Lost> lost = greet(
        channel_, wire::Setup{slot_, options_->heartbeat_interval.count(), options_->engine_setup},
        options_->start_timeout);
    if (lost) throw core::EngineError(who() + " " + lost->why);
  }
  // The rank goes back to waiting for the next executor's Setup.
  ~MpiRank() override {
    try {
      send_message(channel_, wire::Shutdown{"the executor shuts down"},
                   Channel::Clock::now() + options_->heartbeat_timeout);
    } catch (const core::Error&) {
      // not sendable: the world's abort or finalisation ends the rank
    }
  }
  MpiRank(const MpiRank&) = delete;
  MpiRank& operator=(const MpiRank&) = delete;

  SegmentResult run(const SegmentTask& task) override {
    std::variant<SegmentResult, Lost> outcome =
        exchange(channel_, task, {std::nullopt, options_->heartbeat_timeout}, who());
    if (auto* lost = std::get_if<Lost>(&outcome)) {
      // A rank that does not end its walker after a Stop cannot be killed from here either.
      MpiWorld::abort(fmt::format(
          "walker {} of iteration {}: {}. MPI cannot {} a rank, so the whole job ends "
          "here; the iterations committed so far are kept: continue with the same launch "
          "command and --resume",
          task.walker, task.iteration, lost->why, lost->stopped ? "kill" : "replace"));
    }
    return std::get<SegmentResult>(std::move(outcome));
  }

 private:
  std::string who() const {
    return fmt::format("MPI rank {} on {} ({})", rank_, host_, engines::describe(slot_));
  }

  std::shared_ptr<const WorkerOptions> options_;
  std::shared_ptr<Claim> claim_;
  engines::Slot slot_;
  int rank_;
  std::string host_;
  MpiChannel channel_;
};

}  // namespace

std::vector<engines::Slot> mpi_slots(const std::vector<std::string>& hosts, const DevicePlan& plan,
                                     const ExecutionOptions& keys) {
  if (hosts.size() < 2) {
    throw core::ConfigError(
        "execution.backend: mpi needs at least one worker rank besides rank 0; launch with "
        "mpirun -n K (K >= 2)");
  }
  std::vector<engines::Slot> slots;
  std::map<std::string, int> on_host;  // worker ranks seen so far per host
  for (std::size_t r = 1; r < hosts.size(); ++r) {
    const int index = static_cast<int>(slots.size());
    if (plan.devices.empty()) {
      slots.push_back({index, std::nullopt, 0});
      continue;
    }
    const int n = on_host[hosts[r]]++;
    if (n >= plan.n_slots()) {
      throw core::ConfigError(fmt::format(
          "execution.backend: mpi: host {} runs more worker ranks than {} ({}) x {} ({}) gives "
          "slots ({} per host); start at most {} worker ranks per host or raise {}",
          hosts[r], keys.devices_key, plan.devices.size(), keys.workers_key,
          plan.workers_per_device, plan.n_slots(), plan.n_slots(), keys.workers_key));
    }
    slots.push_back({index,
                     plan.devices[static_cast<std::size_t>(n / plan.workers_per_device)].logical,
                     n % plan.workers_per_device});
  }
  return slots;
}

std::unique_ptr<Executor> make_mpi_executor(MpiWorld& world, const WorkerOptions& options,
                                            std::vector<engines::Slot> slots,
                                            std::size_t max_in_flight) {
  TRAILS_CHECK(slots.size() + 1 == static_cast<std::size_t>(world.size()),
               "one slot per worker rank");
  TRAILS_CHECK(!options.walker_timeout, "walker_timeout is refused with the MPI backend");
  const auto claim = std::make_shared<Claim>(world);
  const auto shared = std::make_shared<const WorkerOptions>(options);
  std::vector<std::unique_ptr<engines::EngineInstance>> ranks;
  for (const engines::Slot& slot : slots) {
    const int rank = slot.index + 1;
    ranks.push_back(std::make_unique<MpiRank>(shared, claim, slot, rank,
                                              world.hosts()[static_cast<std::size_t>(rank)]));
  }
  // Each rank's result carries the placement record its engine wrote, checked here on rank 0.
  ranks = binding_checked(std::move(ranks), slots, options.binding_check);
  return make_thread_pool_executor(std::move(ranks), std::move(slots), max_in_flight);
}

}  // namespace trails::exec
