// The command line's value lists (apps/trails/value_list.h): comma-separated reals and whole
// numbers, negative values plain, and every error a UsageError (exit 2) naming the option.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "trails/core/error.h"
#include "value_list.h"

namespace trails::app {
namespace {

TEST(ValueList, NegativeValuesAndErrorsNamingTheOption) {
  EXPECT_EQ(parse_real_list("--start", "-1.5, 2e-1"), (std::vector<double>{-1.5, 0.2}));
  EXPECT_EQ(parse_int_list("--n-bins", "40,7", 1), (std::vector<int>{40, 7}));
  for (const char* bad : {"", "1,,2", "1,x", "nan", "1,"}) {
    try {
      parse_real_list("--end", bad);
      FAIL() << bad;
    } catch (const core::UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--end"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(parse_int_list("--n-bins", "0", 1), core::UsageError);
  EXPECT_THROW(parse_int_list("--n-bins", "2.5", 1), core::UsageError);
}

// The exact words a user sees after "error: ".
TEST(ValueList, Messages) {
  const auto message = [](auto parse) -> std::string {
    try {
      parse();
    } catch (const core::UsageError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(message([] { parse_real_list("--start", "1,,2"); }),
            "--start '1,,2': an empty value; give numbers separated by commas");
  EXPECT_EQ(message([] { parse_real_list("--min-values", "0,y"); }),
            "--min-values '0,y': 'y' is not a finite number; give one value per CV, separated by "
            "commas (for example --min-values -0.5,1.4)");
  EXPECT_EQ(message([] { parse_int_list("--n-bins", "40,0", 1); }),
            "--n-bins '40,0': '0' is not a whole number >= 1");
}

}  // namespace
}  // namespace trails::app
