#include "trails/report/common/gnuplot.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "trails/core/error.h"
#include "trails/core/subprocess.h"

namespace trails::report {

void run_gnuplot(const std::string& script, std::string_view purpose,
                 const std::filesystem::path* log) {
  const std::vector<std::string> argv = {"gnuplot"};
  core::ProcessOptions options;
  options.stdin_data = script;
  options.timeout = std::chrono::minutes(5);
  options.stderr_tail_bytes = 16 << 10;
  core::ProcessResult result;
  try {
    result = core::run_process(argv, options);
  } catch (const core::InputError& e) {
    throw core::InputError(
        fmt::format("{}; install gnuplot-nox (make deps) to draw {}", e.what(), purpose));
  }
  const std::string printed = result.stdout_text + result.stderr_tail;
  if (log != nullptr) {
    std::ofstream out(*log);
    out << printed;
    close_checked(out, *log);
  }
  if (!result.status.ok()) {
    throw core::InputError(fmt::format("gnuplot failed drawing {}: {}", purpose,
                                       core::describe_failure(argv, result, options.timeout)));
  }
  if (!printed.empty()) spdlog::debug("gnuplot ({}) printed:\n{}", purpose, printed);
}

namespace {

std::string read_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

void check_picture(const std::filesystem::path& png, std::string_view purpose) {
  // The last chunk of every PNG: length 0, type IEND, its CRC (PNG specification, 5.6).
  static constexpr std::string_view kIend("\0\0\0\0IEND\xae\x42\x60\x82", 12);
  const std::string bytes = read_bytes(png);
  if (bytes.empty()) {
    throw core::StoreError(fmt::format(
        "gnuplot wrote no picture {} drawing {} (is the disk full?); nothing was replaced",
        png.string(), purpose));
  }
  if (!std::string_view(bytes).ends_with(kIend)) {
    throw core::StoreError(
        fmt::format("gnuplot wrote an incomplete picture {} ({} bytes) drawing {} (is the disk "
                    "full?); nothing was replaced",
                    png.string(), bytes.size(), purpose));
  }
}

std::unique_ptr<core::PendingOutput> stage_picture(const std::filesystem::path& drawn,
                                                   const core::OutputTarget& target,
                                                   std::string_view purpose) {
  check_picture(drawn, purpose);
  auto staged = std::make_unique<core::PendingOutput>(target);
  staged->write(read_bytes(drawn));
  return staged;
}

std::string gp_quote(std::string_view text) {
  std::string out;
  for (const char c : text) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out;
}

std::string gp_file(const std::filesystem::path& file) {
  return "'" + gp_quote(file.string()) + "'";
}

void close_checked(std::ofstream& out, const std::filesystem::path& file) {
  out.close();
  if (!out) {
    throw core::StoreError("cannot write " + file.string() + ": " +
                           (errno != 0 ? std::strerror(errno) : "the write failed"));
  }
}

}  // namespace trails::report
