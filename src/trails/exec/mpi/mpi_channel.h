// MpiChannel: the wire format over MPI point-to-point messages (docs/execution.md, "MPI ranks"):
// one message per wire payload (MPI_BYTE, one tag, MPI_COMM_WORLD), so the worker loop and the
// driver's protocol (worker.h, worker_link.h) run unchanged between rank 0 and a worker rank.
// MPI keeps the order of messages between two ranks on one tag. Waiting polls (MPI_Improbe,
// MPI_Test) and backs off to 1 ms sleeps, since Open MPI's blocking calls spin a core, and on
// an oversubscribed node every idle rank would. Needs MPI initialised with MPI_THREAD_MULTIPLE
// (MpiWorld): a worker's heartbeat thread sends while its main thread receives.
#pragma once

#include "trails/exec/wire/channel.h"

namespace trails::exec {

class MpiChannel final : public Channel {
 public:
  explicit MpiChannel(int peer_rank);
  ~MpiChannel() override;
  MpiChannel(const MpiChannel&) = delete;
  MpiChannel& operator=(const MpiChannel&) = delete;

  // False when `until` passed before the peer took the message (a rank that stopped reading).
  bool send(std::span<const std::uint8_t> payload, std::optional<Clock::time_point> until) override;
  // Closed only when the launcher is gone (MpiWorld::launcher_gone): a rank that ends before
  // its peer makes the launcher end the whole job.
  Receive receive(std::vector<std::uint8_t>* payload,
                  std::optional<Clock::time_point> until) override;

 private:
  int peer_;
  // A send that timed out is still pending: its bytes and request stay here until it completes
  // or the channel is destroyed (MPI reads the buffer until then).
  std::vector<std::uint8_t> pending_;
  void* pending_request_ = nullptr;  // MPI_Request*, kept out of this header
};

}  // namespace trails::exec
