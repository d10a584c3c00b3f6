// The text of a configuration file, checked before any YAML is parsed.
#include "trails/config/config_text.h"

#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

#include "trails/config/yaml_document.h"

namespace trails::config::detail {
namespace {

namespace fs = std::filesystem;

namespace fs = std::filesystem;

// The file's text, or a problem saying why it cannot be read.
std::optional<std::string> read_text(const fs::path& file, const fs::path& absolute,
                                     Problems& problems) {
  std::error_code ec;
  const fs::file_status st = fs::status(file, ec);
  if (!fs::exists(st)) {
    problems.add_file_problem("configuration file not found: " + absolute.string());
    return std::nullopt;
  }
  if (fs::is_directory(st)) {
    problems.add_file_problem("is a directory, not a configuration file: " + absolute.string());
    return std::nullopt;
  }
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof()) {
    problems.add_file_problem("cannot read the configuration file " + absolute.string() +
                              " (check its permissions)");
    return std::nullopt;
  }
  return text.str();
}

// Length of the valid UTF-8 sequence at text[i], or 0 (overlong forms, surrogates and code points
// beyond U+10FFFF are invalid, as in nlohmann::json, which later stores every string).
std::size_t utf8_sequence(const std::string& text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > text.size() || byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return n;
}

// A configuration must be UTF-8 text: its strings (outdir, paths, names) end up in the run's JSON
// metadata, which cannot hold other bytes (docs/reliability.md, "What check verifies before a
// run").
void check_utf8(const std::string& text, Problems& problems) {
  Position at;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence(text, i);
    if (n == 0) {
      const auto c = static_cast<unsigned char>(text[i]);
      const char* hex = "0123456789ABCDEF";
      problems.add(at, "",
                   std::string("byte 0x") + hex[c >> 4] + hex[c & 0xF] +
                       " is not valid UTF-8; configuration files are UTF-8 text (paths "
                       "included): save the file as UTF-8 or rename the path");
      return;
    }
    if (text[i] == '\n') {
      ++at.line;
      at.column = 0;
    } else {
      ++at.column;
    }
    i += n;
  }
}

}  // namespace

fs::path absolute_config_path(const fs::path& file) {
  std::error_code ec;
  fs::path absolute = fs::absolute(file, ec);
  if (ec) absolute = file;
  return absolute.lexically_normal();
}

std::optional<YAML::Node> read_config_document(const fs::path& file, const fs::path& absolute,
                                               Problems& problems) {
  const std::optional<std::string> text = read_text(file, absolute, problems);
  if (!text) return std::nullopt;
  const std::size_t before = problems.size();
  check_utf8(*text, problems);
  if (problems.size() != before) return std::nullopt;
  return parse_document(*text, problems);
}

}  // namespace trails::config::detail
