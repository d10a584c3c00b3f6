// read_pairs_file() of path.h: the --pairs file of `trails path` (JSON or CSV).
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "trails/core/error.h"
#include "trails/report/path/path.h"

namespace trails::report {
namespace fs = std::filesystem;
namespace {

std::vector<PathEnds> pairs_from_json(const fs::path& file, const nlohmann::json& j) {
  const auto bad = [&](std::size_t i, const std::string& why) {
    return core::InputError(
        fmt::format("--pairs {}: entry {} {}; each entry is {{\"name\": "
                    "optional text, \"start\": [x, y, ...], \"end\": [x, y, "
                    "...]}}",
                    file.string(), i, why));
  };
  if (!j.is_array() || j.empty()) {
    throw core::InputError("--pairs " + file.string() +
                           ": a JSON pairs file is a non-empty list of {\"name\"?, \"start\", "
                           "\"end\"} objects");
  }
  std::vector<PathEnds> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const auto& e = j[i];
    if (!e.is_object()) throw bad(i, "is not an object");
    PathEnds p;
    if (e.contains("name")) {
      if (!e["name"].is_string()) throw bad(i, "has a name that is not text");
      p.name = e["name"].get<std::string>();
    }
    for (const char* key : {"start", "end"}) {
      const auto it = e.find(key);
      if (it == e.end() || !it->is_array() || it->empty()) {
        throw bad(i, fmt::format("needs \"{}\" as a list of numbers", key));
      }
      auto& values = std::string(key) == "start" ? p.start : p.end;
      for (const auto& v : *it) {
        if (!v.is_number()) throw bad(i, fmt::format("has a non-number in \"{}\"", key));
        values.push_back(v.get<double>());
      }
    }
    p.start_option = fmt::format("--pairs {} entry {} start", file.string(), i);
    p.end_option = fmt::format("--pairs {} entry {} end", file.string(), i);
    out.push_back(std::move(p));
  }
  return out;
}

// A cell's number, with the words of the command line's --start/--end (apps/trails/value_list.h):
// UsageError (exit 2) naming the line and column.
double number_of(const std::string& where, const std::string& cell) {
  if (cell.empty()) {
    throw core::UsageError(
        fmt::format("{} '{}': an empty value; give numbers separated by commas", where, cell));
  }
  double v = 0.0;
  const auto r = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  if (r.ec != std::errc() || r.ptr != cell.data() + cell.size() || !std::isfinite(v)) {
    throw core::UsageError(fmt::format(
        "{} '{}': '{}' is not a finite number; give one value per CV, separated by commas "
        "(for example {} -0.5,1.4)",
        where, cell, cell, where));
  }
  return v;
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) {
    while (!cell.empty() && (cell.back() == '\r' || cell.back() == ' ')) cell.pop_back();
    while (!cell.empty() && cell.front() == ' ') cell.erase(0, 1);
    cells.push_back(cell);
  }
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

std::vector<PathEnds> pairs_from_csv(const fs::path& file, std::istream& in) {
  std::string line;
  std::getline(in, line);
  const auto header = split_csv(line);
  std::optional<std::size_t> name_col;
  std::vector<std::size_t> start_cols, end_cols;
  const auto find = [&](const std::string& col) -> std::optional<std::size_t> {
    for (std::size_t c = 0; c < header.size(); ++c) {
      if (header[c] == col) return c;
    }
    return std::nullopt;
  };
  name_col = find("name");
  if (const auto s = find("start"), e = find("end"); s && e) {
    start_cols = {*s};
    end_cols = {*e};
  } else {
    for (int k = 0;; ++k) {
      const auto s = find(fmt::format("start_{}", k));
      const auto e = find(fmt::format("end_{}", k));
      if (!s || !e) break;
      start_cols.push_back(*s);
      end_cols.push_back(*e);
    }
  }
  if (start_cols.empty()) {
    throw core::InputError(
        "--pairs " + file.string() +
        ": the CSV header needs columns start,end (1-D) or start_0,...,end_0,... (one per CV), "
        "and optionally name; it has: " +
        line);
  }
  std::vector<PathEnds> out;
  for (int row = 2; std::getline(in, line); ++row) {
    if (line.find_first_not_of(" \r") == std::string::npos) continue;
    const auto cells = split_csv(line);
    PathEnds p;
    const auto where = fmt::format("--pairs {} line {}", file.string(), row);
    const auto cell = [&](std::size_t c) -> const std::string& {
      if (c >= cells.size()) {
        throw core::InputError(
            fmt::format("{}: has {} cells, the header {}", where, cells.size(), header.size()));
      }
      return cells[c];
    };
    if (name_col) p.name = cell(*name_col);
    for (const auto c : start_cols) p.start.push_back(number_of(where + " start", cell(c)));
    for (const auto c : end_cols) p.end.push_back(number_of(where + " end", cell(c)));
    p.start_option = where + " start";
    p.end_option = where + " end";
    out.push_back(std::move(p));
  }
  if (out.empty())
    throw core::InputError("--pairs " + file.string() + ": no pairs below the header");
  return out;
}

}  // namespace

std::vector<PathEnds> read_pairs_file(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw core::InputError("--pairs " + file.string() + ": cannot open the file");
  auto ext = file.extension().string();
  if (ext == ".json" || ext == ".JSON") {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      throw core::InputError("--pairs " + file.string() + ": not valid JSON: " + e.what());
    }
    return pairs_from_json(file, j);
  }
  return pairs_from_csv(file, in);
}

}  // namespace trails::report
