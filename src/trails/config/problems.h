// Collects every problem found while loading one configuration file, so the user sees them all
// at once, and throws them as one core::ConfigError:
//   "N problem(s) in FILE:\nFILE:LINE:COL: key.path: what is wrong and what to do\n..."
// Positions are yaml-cpp's 0-based marks; they are printed 1-based. Internal to the config module.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace trails::config::detail {

struct Position {
  int line = 0;    // 0-based
  int column = 0;  // 0-based
};

Position position_of(const YAML::Mark& mark);

// "FILE:LINE:COL: key.path: text" (1-based; no key part when key_path is empty).
std::string located(const std::string& file, Position at, const std::string& key_path,
                    const std::string& text);

class Problems {
 public:
  explicit Problems(std::string display_file) : file_(std::move(display_file)) {}

  void add(Position at, std::string key_path, std::string text);
  // A problem with the file as a whole (it cannot be read): no line or key.
  void add_file_problem(std::string text);

  // Problems later added under `from` (or a key below it) are reported under `to`: a swarm's
  // PathGennie `openmm:` keys are read by the campaign table under system.* / engine.* names.
  void rename(std::string from, std::string to) {
    renames_.emplace_back(std::move(from), std::move(to));
  }

  bool empty() const { return items_.empty(); }
  std::size_t size() const { return items_.size(); }
  // True if a problem was already recorded for exactly this key path (avoids cascades).
  bool has_problem_at(const std::string& key_path) const;

  // The full message, problems ordered by position (file problems first).
  std::string format() const;
  // Throws core::ConfigError with format() if any problem was recorded.
  void throw_if_any() const;

 private:
  struct Item {
    bool positioned = true;
    Position at;
    std::string key_path;
    std::string text;
  };
  std::string file_;
  std::vector<Item> items_;
  std::vector<std::pair<std::string, std::string>> renames_;
};

}  // namespace trails::config::detail
