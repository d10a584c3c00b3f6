#include "trails/engines/gromacs/md_log.h"

#include <sstream>

namespace trails::engines::gromacs {

std::string without_citations(const std::string& log) {
  std::istringstream in(log);
  std::string out, line;
  bool citing = false;
  bool after_citation = false;  // the blank lines that follow a block go with it
  std::size_t end_of_text = 0;  // out's size after its last non-blank line
  while (std::getline(in, line)) {
    const bool blank = line.find_first_not_of(" \t\r") == std::string::npos;
    if (line.find("++++ PLEASE READ AND CITE") != std::string::npos) citing = true;
    if (!citing && !(after_citation && blank)) {
      after_citation = false;
      out += line + "\n";
      if (!blank) end_of_text = out.size();
    }
    if (citing && line.find("--- Thank You ---") != std::string::npos) {
      citing = false;
      after_citation = true;
    }
  }
  out.resize(end_of_text);
  return out;
}

}  // namespace trails::engines::gromacs
