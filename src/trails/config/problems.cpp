#include "trails/config/problems.h"

#include <algorithm>

#include "trails/core/error.h"

namespace trails::config::detail {

Position position_of(const YAML::Mark& mark) {
  // yaml-cpp's null mark is -1/-1; clamp so it prints as 1:1 rather than 0:0.
  return Position{std::max(mark.line, 0), std::max(mark.column, 0)};
}

std::string located(const std::string& file, Position at, const std::string& key_path,
                    const std::string& text) {
  std::string out =
      file + ":" + std::to_string(at.line + 1) + ":" + std::to_string(at.column + 1) + ": ";
  if (!key_path.empty()) out += key_path + ": ";
  return out + text;
}

void Problems::add(Position at, std::string key_path, std::string text) {
  for (const auto& [from, to] : renames_) {
    if (key_path.rfind(from, 0) == 0 &&
        (key_path.size() == from.size() || key_path[from.size()] == '.')) {
      key_path = to + key_path.substr(from.size());
      break;
    }
  }
  items_.push_back(Item{true, at, std::move(key_path), std::move(text)});
}

void Problems::add_file_problem(std::string text) {
  items_.push_back(Item{false, Position{}, {}, std::move(text)});
}

bool Problems::has_problem_at(const std::string& key_path) const {
  return std::any_of(items_.begin(), items_.end(),
                     [&](const Item& i) { return i.key_path == key_path; });
}

std::string Problems::format() const {
  std::vector<const Item*> order;
  for (const auto& item : items_) order.push_back(&item);
  // Reading order makes a long list easy to work through; stable keeps same-spot problems in
  // the order they were found (a type error before the rule it breaks).
  std::stable_sort(order.begin(), order.end(), [](const Item* a, const Item* b) {
    if (a->positioned != b->positioned) return !a->positioned;
    if (a->at.line != b->at.line) return a->at.line < b->at.line;
    return a->at.column < b->at.column;
  });
  std::string out = std::to_string(items_.size()) + " problem(s) in " + file_ + ":";
  for (const Item* item : order) {
    out += "\n" + (item->positioned ? located(file_, item->at, item->key_path, item->text)
                                    : file_ + ": " + item->text);
  }
  return out;
}

void Problems::throw_if_any() const {
  if (!items_.empty()) throw core::ConfigError(format());
}

}  // namespace trails::config::detail
