// The one way report/ runs gnuplot: the script goes to gnuplot's stdin (no shell), its output
// is captured, and a failure — gnuplot missing, a non-zero exit, a signal, 5 minutes without
// finishing — is an InputError that says what was being drawn and quotes gnuplot's last lines.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace trails::report {

// Runs `gnuplot` (found in PATH) on `script`. `purpose` completes "gnuplot failed drawing ...".
// With `log`, everything gnuplot printed is also written there (success or not).
void run_gnuplot(const std::string& script, std::string_view purpose,
                 const std::filesystem::path* log = nullptr);

}  // namespace trails::report
