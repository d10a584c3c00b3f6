// Comparisons in tests: bit equality of doubles and text containment. Part of
// trails_test_support (docs/architecture.md, "Tests").
#pragma once

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace trails::test_support {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The same doubles bit for bit (NaN payloads and the sign of zero included).
inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A test failure that shows the text when `words` is not in it.
inline void expect_has(const std::string& text, const std::string& words) {
  EXPECT_NE(text.find(words), std::string::npos) << "'" << words << "' not in:\n" << text;
}

}  // namespace trails::test_support
