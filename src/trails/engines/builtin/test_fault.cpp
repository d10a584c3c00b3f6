// inject_test_fault (test_fault.h). The variable is read once per process.
#include "trails/engines/builtin/test_fault.h"

#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "trails/core/error.h"

namespace trails::engines::builtin {
namespace {

struct Fault {
  std::string kind;
  std::int64_t iteration = 0;
  std::int64_t walker = 0;
};

std::optional<Fault> fault_from_environment() {
  const char* value = std::getenv("TRAILS_TEST_FAULT");
  if (value == nullptr || *value == '\0') return std::nullopt;
  std::istringstream in(value);
  Fault fault;
  char colon1 = 0;
  char colon2 = 0;
  std::getline(in, fault.kind, ':');
  in.unget();
  in >> colon1 >> fault.iteration >> colon2 >> fault.walker;
  const bool known = fault.kind == "segv" || fault.kind == "abort" || fault.kind == "hang" ||
                     fault.kind == "stop" || fault.kind == "throw";
  if (!in || colon1 != ':' || colon2 != ':' || !known || in.peek() != EOF) {
    throw core::ConfigError(
        std::string("TRAILS_TEST_FAULT=") + value +
        ": expected KIND:ITERATION:WALKER with KIND segv, abort, hang, stop or throw");
  }
  return fault;
}

}  // namespace

void inject_test_fault(const SegmentTask& task) {
  static const std::optional<Fault> fault = fault_from_environment();
  if (!fault || fault->iteration != task.iteration || fault->walker != task.walker) return;
  // TRAILS_TEST_FAULT_ONCE=PATH: only the process that creates PATH misbehaves, so a walker
  // that runs again (a scheduler array's next attempt) succeeds.
  if (const char* once = std::getenv("TRAILS_TEST_FAULT_ONCE"); once != nullptr && *once != '\0') {
    const int fd = ::open(once, O_CREAT | O_EXCL | O_WRONLY, 0644);
    if (fd < 0) return;
    ::close(fd);
  }
  std::fprintf(stderr, "TRAILS_TEST_FAULT: %s at walker %lld of iteration %lld\n",
               fault->kind.c_str(), static_cast<long long>(task.walker),
               static_cast<long long>(task.iteration));
  std::fflush(stderr);
  if (fault->kind == "throw") {
    // An exception out of the engine: run_guarded makes it this walker's Failed result.
    throw core::EngineError(fmt::format("TRAILS_TEST_FAULT: walker {} of iteration {} threw",
                                        task.walker, task.iteration));
  }
  if (fault->kind == "segv") std::raise(SIGSEGV);
  if (fault->kind == "abort") std::abort();
  if (fault->kind == "stop") std::raise(SIGSTOP);
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));  // hang (and stop, if continued)
}

}  // namespace trails::engines::builtin
