#include "trails/engines/gromacs/md_log.h"

#include <deque>
#include <fstream>
#include <sstream>

namespace trails::engines::gromacs {

std::string md_log_tail(const std::string& log, std::size_t max_lines) {
  std::istringstream in(log);
  std::deque<std::string> kept;
  std::string line;
  bool citing = false;
  bool after_citation = false;  // the blank lines that follow a block go with it
  const auto blank = [](const std::string& l) {
    return l.find_first_not_of(" \t\r") == std::string::npos;
  };
  while (std::getline(in, line)) {
    if (line.find("++++ PLEASE READ AND CITE") != std::string::npos) citing = true;
    if (!citing && !(after_citation && blank(line))) {
      after_citation = false;
      kept.push_back(line);
      if (kept.size() > max_lines) kept.pop_front();
    }
    if (citing && line.find("--- Thank You ---") != std::string::npos) {
      citing = false;
      after_citation = true;
    }
  }
  while (!kept.empty() && blank(kept.back())) kept.pop_back();
  std::string out;
  for (const auto& l : kept) out += l + "\n";
  return out;
}

std::string md_log_file_tail(const std::filesystem::path& path, std::size_t max_lines) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return md_log_tail(text.str(), max_lines);
}

}  // namespace trails::engines::gromacs
