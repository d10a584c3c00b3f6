// MpiChannel (mpi_channel.h).
#include "trails/exec/mpi/mpi_channel.h"

#include <mpi.h>

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "trails/core/error.h"
#include "trails/exec/mpi/mpi_world.h"

namespace trails::exec {
namespace {

constexpr int kWireTag = 7311;  // every wire message; nothing else in Trails uses MPI messages

enum class Poll { Ready, TimedOut, Orphaned };

// Calls `ready` until it returns true, `until` passes, or the launcher is gone (checked every
// 256 polls): a few hundred quick polls first (a result usually follows within microseconds of
// the last heartbeat or task), then sleeps growing from 20 µs to 1 ms, so a rank waiting for
// work leaves the core to the ranks that compute.
template <class Ready>
Poll poll_until(Ready ready, std::optional<Channel::Clock::time_point> until) {
  std::chrono::microseconds nap{20};
  for (int polls = 0;; ++polls) {
    if (ready()) return Poll::Ready;
    if (until && Channel::Clock::now() >= *until) return Poll::TimedOut;
    if (polls % 256 == 255 && MpiWorld::launcher_gone()) return Poll::Orphaned;
    if (polls < 200) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(nap);
      nap = std::min(nap * 2, std::chrono::microseconds{1000});
    }
  }
}

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw core::EngineError(fmt::format("MPI: {} failed (code {})", what, rc));
}

}  // namespace

MpiChannel::MpiChannel(int peer_rank) : peer_(peer_rank) {}

MpiChannel::~MpiChannel() {
  if (pending_request_ == nullptr) return;
  auto* request = static_cast<MPI_Request*>(pending_request_);
  MPI_Cancel(request);
  MPI_Request_free(request);
  delete request;
}

bool MpiChannel::send(std::span<const std::uint8_t> payload,
                      std::optional<Clock::time_point> until) {
  if (payload.size() > wire::kMaxFrameBytes) {
    throw core::CorruptionError(
        fmt::format("wire: message of {} bytes is over the limit of {} bytes", payload.size(),
                    wire::kMaxFrameBytes));
  }
  if (pending_request_ != nullptr) return false;  // the peer never took the last one
  pending_.assign(payload.begin(), payload.end());
  auto request = std::make_unique<MPI_Request>();
  check(MPI_Isend(pending_.data(), static_cast<int>(pending_.size()), MPI_BYTE, peer_, kWireTag,
                  MPI_COMM_WORLD, request.get()),
        "MPI_Isend");
  const bool sent = poll_until(
                        [&] {
                          int done = 0;
                          check(MPI_Test(request.get(), &done, MPI_STATUS_IGNORE), "MPI_Test");
                          return done != 0;
                        },
                        until) == Poll::Ready;
  if (!sent) pending_request_ = request.release();
  return sent;
}

Channel::Receive MpiChannel::receive(std::vector<std::uint8_t>* payload,
                                     std::optional<Clock::time_point> until) {
  MPI_Message message = MPI_MESSAGE_NULL;
  MPI_Status status;
  const Poll arrived = poll_until(
      [&] {
        int found = 0;
        check(MPI_Improbe(peer_, kWireTag, MPI_COMM_WORLD, &found, &message, &status),
              "MPI_Improbe");
        return found != 0;
      },
      until);
  if (arrived == Poll::TimedOut) return Receive::TimedOut;
  if (arrived == Poll::Orphaned) return Receive::Closed;
  int count = 0;
  check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
  payload->resize(static_cast<std::size_t>(count));
  check(MPI_Mrecv(payload->data(), count, MPI_BYTE, &message, MPI_STATUS_IGNORE), "MPI_Mrecv");
  return Receive::Message;
}

}  // namespace trails::exec
