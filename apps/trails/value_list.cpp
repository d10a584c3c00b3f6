#include "value_list.h"

#include <charconv>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "trails/core/error.h"

namespace trails::app {
namespace {

// The items between commas, surrounding blanks removed; an empty item is an error.
std::vector<std::string_view> items_of(std::string_view option, std::string_view text,
                                       std::string_view expected) {
  std::vector<std::string_view> items;
  std::size_t from = 0;
  while (true) {
    const std::size_t comma = text.find(',', from);
    std::string_view item =
        text.substr(from, comma == std::string_view::npos ? text.npos : comma - from);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.empty()) {
      throw core::UsageError(fmt::format("{} '{}': an empty value; give {} separated by commas",
                                         option, text, expected));
    }
    items.push_back(item);
    if (comma == std::string_view::npos) return items;
    from = comma + 1;
  }
}

}  // namespace

std::vector<double> parse_real_list(std::string_view option, std::string_view text) {
  std::vector<double> out;
  for (const auto item : items_of(option, text, "numbers")) {
    double v = 0.0;
    const auto r = std::from_chars(item.data(), item.data() + item.size(), v);
    if (r.ec != std::errc() || r.ptr != item.data() + item.size() || !std::isfinite(v)) {
      throw core::UsageError(fmt::format(
          "{} '{}': '{}' is not a finite number; give one value per CV, separated by commas "
          "(for example {} -0.5,1.4)",
          option, text, item, option));
    }
    out.push_back(v);
  }
  return out;
}

std::vector<int> parse_int_list(std::string_view option, std::string_view text, int minimum) {
  std::vector<int> out;
  for (const auto item : items_of(option, text, "whole numbers")) {
    int v = 0;
    const auto r = std::from_chars(item.data(), item.data() + item.size(), v);
    if (r.ec != std::errc() || r.ptr != item.data() + item.size() || v < minimum) {
      throw core::UsageError(
          fmt::format("{} '{}': '{}' is not a whole number >= {}", option, text, item, minimum));
    }
    out.push_back(v);
  }
  return out;
}

}  // namespace trails::app
