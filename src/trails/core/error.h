// One error hierarchy for Trails. Every module throws these; `main` catches once and maps
// Error::exit_code() to the process exit status (2 = bad configuration/input/usage, 1 = runtime).
// Each error records where it was thrown (std::source_location) and can gather context lines.
#pragma once

#include <source_location>
#include <stdexcept>
#include <string>
#include <vector>

namespace trails::core {

enum class ErrorKind { Config, Input, Usage, Engine, Store, Corruption, Internal };

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message,
        std::source_location where = std::source_location::current());

  ErrorKind kind() const noexcept { return kind_; }
  const std::source_location& where() const noexcept { return where_; }
  const std::vector<std::string>& context() const noexcept { return context_; }

  // Adds an outer context line ("while committing iteration 3"); returns *this for rethrow.
  Error& with_context(std::string line);

  // 2 for Config/Input/Usage (the user can fix it), 1 for everything else.
  int exit_code() const noexcept;

  // Message followed by the context lines, innermost first.
  std::string describe() const;

 private:
  ErrorKind kind_;
  std::source_location where_;
  std::vector<std::string> context_;
};

// Name is a class name, which cannot be parenthesised.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define TRAILS_DEFINE_ERROR(Name, Kind)                                         \
  class Name : public Error {                                                   \
   public:                                                                      \
    explicit Name(const std::string& message,                                   \
                  std::source_location where = std::source_location::current()) \
        : Error(ErrorKind::Kind, message, where) {}                             \
  };
// NOLINTEND(bugprone-macro-parentheses)

TRAILS_DEFINE_ERROR(ConfigError, Config)          // configuration file problems (exit 2)
TRAILS_DEFINE_ERROR(InputError, Input)            // input files and run directories (exit 2)
TRAILS_DEFINE_ERROR(UsageError, Usage)            // command-line misuse (exit 2)
TRAILS_DEFINE_ERROR(EngineError, Engine)          // MD engine failures
TRAILS_DEFINE_ERROR(StoreError, Store)            // run store I/O failures
TRAILS_DEFINE_ERROR(CorruptionError, Corruption)  // checksum / format damage in a run store
TRAILS_DEFINE_ERROR(InternalError, Internal)      // a Trails bug

#undef TRAILS_DEFINE_ERROR

}  // namespace trails::core

// Stays on in release builds: an internal invariant that, if broken, is a Trails bug.
#define TRAILS_CHECK(cond, msg)                                                                  \
  do {                                                                                           \
    if (!(cond))                                                                                 \
      throw ::trails::core::InternalError(std::string("check failed: ") + #cond + ": " + (msg)); \
  } while (0)
