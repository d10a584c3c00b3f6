// report::run_gnuplot: the script reaches gnuplot on stdin, a script gnuplot rejects is an
// InputError that says what was being drawn and quotes gnuplot's own message, and the log gets
// everything gnuplot printed.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support/files.h"
#include "trails/core/error.h"
#include "trails/report/common/gnuplot.h"

namespace trails::report {
namespace {

namespace fs = std::filesystem;

TEST(Gnuplot, DrawsAScript) {
  const fs::path png = fs::path(::testing::TempDir()) / "gnuplot_test.png";
  fs::remove(png);
  run_gnuplot("set terminal pngcairo size 200,100\nset output '" + png.string() +
                  "'\nplot sin(x)\nunset output\n",
              "a test plot");
  EXPECT_GT(fs::file_size(png), 0u);
}

TEST(Gnuplot, FailureQuotesGnuplotAndWritesTheLog) {
  const fs::path log = fs::path(::testing::TempDir()) / "gnuplot_test.log";
  try {
    run_gnuplot("print 'before the error'\nthis_is_not_a_gnuplot_command 1 2 3\n", "a test plot",
                &log);
    FAIL() << "expected InputError";
  } catch (const core::InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("gnuplot failed drawing a test plot: 'gnuplot' exited with status 1:"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("this_is_not_a_gnuplot_command"), std::string::npos) << what;
  }
  const std::string text = test_support::read_text(log);
  EXPECT_NE(text.find("before the error"), std::string::npos) << text;
}

}  // namespace
}  // namespace trails::report
