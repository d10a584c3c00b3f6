#include "trails/config/yaml_document.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <sstream>
#include <vector>

#include <yaml-cpp/eventhandler.h>

namespace trails::config::detail {
namespace {

const char* const kSyntaxHint =
    "; check the indentation (spaces, not tabs), colons, brackets and quotes";

// Bounds on the document as its aliases expand it (docs/reliability.md#inputs-and-outputs): the
// node graph YAML::Load builds shares aliased nodes, but every conversion walks it as a tree, so
// nested aliases ("billion laughs") would grow without bound there.
constexpr std::int64_t kMaxExpandedNodes = 100000;
constexpr int kMaxExpandedDepth = 256;

// Records where documents start and, for the first document, how large and how deep it is once
// every alias is expanded: each anchor's expanded size and depth are recorded when its node
// ends, so an alias costs one lookup and nothing is expanded. An alias of a node that is still
// open (`q: &q {its: *q}`) makes the node contain itself: yaml-cpp builds that cycle, and every
// walk of it recursed until the stack overflowed (a segfault), so it is recorded as `cycle`.
class DocumentScan : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;
  std::optional<YAML::Mark> too_large;  // the first node at which a bound was exceeded
  std::optional<YAML::Mark> cycle;      // the first alias of a node that contains it

  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (first_document() && !cycle && std::any_of(stack_.begin(), stack_.end(), [&](const Open& o) {
          return o.anchor == anchor;
        })) {
      cycle = mark;
      return;
    }
    const auto it = anchors_.find(anchor);
    if (it != anchors_.end()) add(mark, it->second);
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string&) override {
    leaf(mark, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Size {
    std::int64_t nodes = 1;
    int depth = 1;
  };
  struct Open {
    YAML::Mark mark;
    YAML::anchor_t anchor;
    Size size;
  };

  bool first_document() const { return starts.size() == 1; }
  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (!first_document()) return;
    if (anchor != YAML::NullAnchor) anchors_[anchor] = Size{};
    add(mark, Size{});
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (first_document()) stack_.push_back(Open{mark, anchor, Size{}});
  }
  void close() {
    if (!first_document() || stack_.empty()) return;
    const Open done = stack_.back();
    stack_.pop_back();
    if (done.anchor != YAML::NullAnchor) anchors_[done.anchor] = done.size;
    add(done.mark, done.size);
  }
  // Adds a (possibly aliased) child of `size` to the innermost open node; saturates at the bound.
  void add(const YAML::Mark& mark, const Size& size) {
    if (!first_document() || stack_.empty()) return;
    Size& parent = stack_.back().size;
    parent.nodes = std::min(parent.nodes + size.nodes, kMaxExpandedNodes + 1);
    parent.depth = std::max(parent.depth, std::min(size.depth + 1, kMaxExpandedDepth + 1));
    if (!too_large && (parent.nodes > kMaxExpandedNodes || parent.depth > kMaxExpandedDepth)) {
      too_large = mark;
    }
  }

  std::map<YAML::anchor_t, Size> anchors_;
  std::vector<Open> stack_;
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

namespace {

// Where the text stops being UTF-8 (YAML's encoding here): a NUL byte, or the first byte of an
// invalid, overlong or truncated sequence, a surrogate or a code point past U+10FFFF; nullopt
// for valid text.
// Checked first, so that no string of the file reaches the JSON the run stores and digests
// (nlohmann_json refuses to write invalid UTF-8: fuzz/corpus/yaml_convert).
std::optional<Position> first_invalid_utf8(const std::string& text) {
  Position at;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t n = 0;
    std::uint32_t cp = 0;
    if (c == 0) return at;  // YAML has no NUL, and yaml-cpp would read the text as UTF-16/32
    if (c < 0x80) {
      n = 1;
      cp = c;
    } else if ((c & 0xE0) == 0xC0) {
      n = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 4;
      cp = c & 0x07;
    } else {
      return at;
    }
    if (i + n > text.size()) return at;
    for (std::size_t k = 1; k < n; ++k) {
      const auto t = static_cast<unsigned char>(text[i + k]);
      if ((t & 0xC0) != 0x80) return at;
      cp = (cp << 6) | (t & 0x3F);
    }
    static constexpr std::uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kSmallest[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return at;
    if (c == '\n') {
      ++at.line;
      at.column = 0;
    } else {
      ++at.column;
    }
    i += n;
  }
  return std::nullopt;
}

}  // namespace

std::optional<YAML::Node> parse_document(const std::string& text, Problems& problems) {
  if (const auto bad = first_invalid_utf8(text)) {
    problems.add(*bad, "",
                 "the file is not UTF-8 text here (a NUL byte, or a byte that starts no UTF-8 "
                 "character); save the file as UTF-8");
    return std::nullopt;
  }
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
  // Look for a second document, but never past it (see the header), and measure the first.
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentScan scan;
  try {
    if (parser.HandleNextDocument(scan) && !scan.too_large && !scan.cycle &&
        parser.HandleNextDocument(scan) && scan.starts.size() > 1) {
      // yaml-cpp also starts a new document on some indentation mistakes, hence the hint.
      problems.add(position_of(scan.starts[1]), "",
                   "a second YAML document starts here (a `---` line or inconsistent "
                   "indentation); a config file holds exactly one mapping");
    }
  } catch (const YAML::Exception& e) {
    problems.add(position_of(e.mark), "", "YAML syntax error: " + e.msg + kSyntaxHint);
  }
  if (scan.cycle) {
    // Nothing is converted: every conversion would recurse into the cycle for ever.
    problems.add(position_of(*scan.cycle), "",
                 "this YAML alias (*name) refers to a node that contains it, so the value would "
                 "contain itself without end; write the value out instead of the alias");
    return std::nullopt;
  }
  if (scan.too_large) {
    // Nothing is converted: the conversion is what would run out of memory.
    problems.add(position_of(*scan.too_large), "",
                 "YAML anchors and aliases (&name, *name) expand the document past " +
                     std::to_string(kMaxExpandedNodes) + " values or " +
                     std::to_string(kMaxExpandedDepth) +
                     " levels of nesting here; write the values out instead of nesting aliases");
    return std::nullopt;
  }
  return root;
}

}  // namespace trails::config::detail
