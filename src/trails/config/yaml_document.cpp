#include "trails/config/yaml_document.h"

#include <sstream>
#include <vector>

#include <yaml-cpp/eventhandler.h>

namespace trails::config::detail {
namespace {

const char* const kSyntaxHint =
    "; check the indentation (spaces, not tabs), colons, brackets and quotes";

// Records where documents start; ignores their content.
class DocumentStarts : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;
  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// Position of the first line that holds more than a comment, a document marker or a null
// word, if any: yaml-cpp reads some garbage (a lone `,`) as an empty document, and that must be
// a syntax error, not "the file is empty".
std::optional<Position> first_content(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  for (int n = 0; std::getline(in, line); ++n) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    std::string word = line.substr(first);
    word = word.substr(0, word.find_first_of(" \t\r#"));
    if (word == "---" || word == "..." || word == "~" || word == "null" || word == "Null" ||
        word == "NULL") {
      continue;
    }
    return Position{n, static_cast<int>(first)};
  }
  return std::nullopt;
}

}  // namespace

std::optional<YAML::Node> parse_document(const std::string& text, Problems& problems) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    problems.add(position_of(e.mark), "", "YAML syntax error: " + e.msg + kSyntaxHint);
    return std::nullopt;
  }
  if (root.IsNull()) {
    if (const auto at = first_content(text)) {
      problems.add(*at, "",
                   std::string("YAML syntax error: this is not a YAML mapping") + kSyntaxHint);
    } else {
      problems.add(Position{}, "",
                   "the file is empty; `trails init` writes an annotated "
                   "starting point");
    }
    return std::nullopt;
  }
  // Look for a second document, but never past it (see the header).
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts starts;
  try {
    if (parser.HandleNextDocument(starts) && parser.HandleNextDocument(starts) &&
        starts.starts.size() > 1) {
      // yaml-cpp also starts a new document on some indentation mistakes, hence the hint.
      problems.add(position_of(starts.starts[1]), "",
                   "a second YAML document starts here (a `---` line or inconsistent "
                   "indentation); a config file holds exactly one mapping");
    }
  } catch (const YAML::Exception& e) {
    problems.add(position_of(e.mark), "", "YAML syntax error: " + e.msg + kSyntaxHint);
  }
  return root;
}

}  // namespace trails::config::detail
