// The one way report/ runs gnuplot: the script goes to gnuplot's stdin (no shell), its output
// is captured, and a failure — gnuplot missing, a non-zero exit, a signal, 5 minutes without
// finishing — is an InputError that says what was being drawn and quotes gnuplot's last lines.
#pragma once

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>

#include "trails/core/output_target.h"

namespace trails::report {

// Runs `gnuplot` (found in PATH) on `script`. `purpose` completes "gnuplot failed drawing ...".
// With `log`, everything gnuplot printed is also written there (success or not).
void run_gnuplot(const std::string& script, std::string_view purpose,
                 const std::filesystem::path* log = nullptr);

// gnuplot exits 0 when writing its picture fails (a full disk leaves an empty or truncated PNG):
// StoreError unless `png` is a complete PNG, one that ends with its IEND chunk.
void check_picture(const std::filesystem::path& png, std::string_view purpose);
// check_picture() on `drawn` (in a temporary directory), then its bytes are written next to
// `target`; commit() of the result replaces the target. Staging every picture before the first
// commit keeps all earlier pictures when any write fails.
std::unique_ptr<core::PendingOutput> stage_picture(const std::filesystem::path& drawn,
                                                   const core::OutputTarget& target,
                                                   std::string_view purpose);
// `text` inside a gnuplot single-quoted string: a quote is written twice.
std::string gp_quote(std::string_view text);
// A file name as a gnuplot string literal: 'name', its quotes doubled.
std::string gp_file(const std::filesystem::path& file);
// Closes a data file written for gnuplot; StoreError naming it when any write failed.
void close_checked(std::ofstream& out, const std::filesystem::path& file);

}  // namespace trails::report
