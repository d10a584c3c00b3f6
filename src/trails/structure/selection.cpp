// select(): the expression tokenized, then parsed by recursive descent into a mask over the
// topology's atoms (selection.h); what keywords take as values is in selection_values.h.
#include "trails/structure/selection.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string>

#include "trails/core/error.h"
#include "trails/structure/residues.h"
#include "trails/structure/selection_values.h"

namespace trails::structure {
namespace {

using detail::edit_distance;
using detail::glob_match;
using detail::parse_range;
using detail::Range;

struct Token {
  std::string text;
  std::size_t column = 0;  // 1-based column in the expression
};

using Mask = std::vector<char>;

constexpr std::array<std::string_view, 19> kKeywords{
    "all",     "none",    "protein", "backbone", "heavy", "name",    "resname",
    "resid",   "resnum",  "index",   "bynum",    "type",  "element", "segid",
    "chainid", "chainID", "and",     "or",       "not"};

// MDAnalysis keywords a user may carry over from Python that Trails does not evaluate.
constexpr std::array<std::string_view, 26> kUnsupported{
    "around",   "sphzone",         "sphlayer",    "cyzone",
    "cylayer",  "isolayer",        "point",       "byres",
    "same",     "global",          "bonded",      "group",
    "nucleic",  "nucleicbackbone", "nucleicbase", "nucleicsugar",
    "prop",     "smarts",          "aromatic",    "mass",
    "charge",   "altloc",          "id",          "resindex",
    "segindex", "record_type"};

bool is_keyword(std::string_view s) {
  return std::find(kKeywords.begin(), kKeywords.end(), s) != kKeywords.end() || s == "(" ||
         s == ")";
}

class Parser {
 public:
  Parser(const Topology& topology, std::string_view expression)
      : topology_(topology), expression_(expression) {
    tokenize();
  }

  std::vector<int> run() {
    if (tokens_.empty())
      fail(expression_.size() + 1,
           "the selection is empty; write 'all' "
           "for every atom");
    Mask mask = expression(0);
    if (pos_ < tokens_.size()) {
      const Token& t = tokens_[pos_];
      if (t.text == ")") fail(t.column, "unmatched ')'");
      fail(t.column, fmt::format("unexpected '{}' after a complete selection; join selections "
                                 "with 'and' or 'or'",
                                 t.text));
    }
    std::vector<int> indices;
    for (std::size_t i = 0; i < mask.size(); ++i)
      if (mask[i]) indices.push_back(static_cast<int>(i));
    return indices;
  }

 private:
  // "what; hint" reads as "what at column N; hint", followed by the expression and a caret.
  [[noreturn]] void fail(std::size_t column, const std::string& what) const {
    const std::size_t cut = std::min(what.find("; "), what.size());
    throw core::InputError(fmt::format("bad atom selection \"{}\": {} at column {}{}\n  {}\n  {}^",
                                       expression_, what.substr(0, cut), column, what.substr(cut),
                                       expression_, std::string(column - 1, ' ')));
  }

  void tokenize() {
    std::size_t i = 0;
    while (i < expression_.size()) {
      const char c = expression_[i];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++i;
      } else if (c == '(' || c == ')') {
        tokens_.push_back({std::string(1, c), i + 1});
        ++i;
      } else {
        std::size_t j = i;
        while (j < expression_.size() &&
               std::string_view(" \t\n\r()").find(expression_[j]) == std::string_view::npos)
          ++j;
        tokens_.push_back({std::string(expression_.substr(i, j - i)), i + 1});
        i = j;
      }
    }
  }

  const Token* peek() const { return pos_ < tokens_.size() ? &tokens_[pos_] : nullptr; }

  static int precedence(const Token* t) {
    if (t && (t->text == "and" || t->text == "or")) return 3;
    return -1;
  }

  Mask expression(int min_precedence) {
    Mask left = term();
    while (precedence(peek()) >= min_precedence) {
      const bool is_and = tokens_[pos_++].text == "and";
      Mask right = expression(precedence(&tokens_[pos_ - 1]) + 1);
      for (std::size_t i = 0; i < left.size(); ++i)
        left[i] = is_and ? (left[i] && right[i]) : (left[i] || right[i]);
    }
    return left;
  }

  Mask filled(bool value) const { return Mask(topology_.atoms.size(), value ? 1 : 0); }

  template <class Pred>
  Mask where(Pred pred) const {
    Mask m(topology_.atoms.size(), 0);
    for (std::size_t i = 0; i < m.size(); ++i) m[i] = pred(topology_.atoms[i]) ? 1 : 0;
    return m;
  }

  Mask term() {
    const Token* t = peek();
    if (!t) {
      fail(expression_.size() + 1,
           pos_ == 0 ? "the selection is empty"
                     : fmt::format("selection ends after '{}'; a keyword or value must follow",
                                   tokens_[pos_ - 1].text));
    }
    const Token token = *t;
    ++pos_;
    const std::string& k = token.text;
    if (k == "(") {
      Mask inner = expression(0);
      if (!peek()) fail(token.column, "'(' is never closed");
      if (peek()->text != ")")
        fail(peek()->column,
             fmt::format("expected ')' or 'and'/'or' but found '{}'", peek()->text));
      ++pos_;
      return inner;
    }
    if (k == ")") fail(token.column, "unexpected ')'; a keyword must come first");
    if (k == "and" || k == "or")
      fail(token.column, fmt::format("'{}' needs a selection on its left", k));
    if (k == "not") {
      Mask inner = expression(5);
      for (char& v : inner) v = !v;
      return inner;
    }
    if (k == "all") return filled(true);
    if (k == "none") return filled(false);
    if (k == "protein") return where([](const Atom& a) { return is_protein_residue(a.resname); });
    if (k == "backbone")
      return where([](const Atom& a) {
        return is_protein_residue(a.resname) && is_backbone_atom_name(a.name);
      });
    if (k == "heavy") return where([](const Atom& a) { return a.element != "H"; });
    if (k == "name")
      return strings(token, [](const Atom& a) -> const std::string& { return a.name; });
    if (k == "resname")
      return strings(token, [](const Atom& a) -> const std::string& { return a.resname; });
    if (k == "type")
      return strings(token, [](const Atom& a) -> const std::string& { return a.type; });
    if (k == "element")
      return strings(token, [](const Atom& a) -> const std::string& { return a.element; });
    if (k == "segid")
      return strings(token, [](const Atom& a) -> const std::string& { return a.segid; });
    if (k == "chainid" || k == "chainID")
      return strings(token, [](const Atom& a) -> const std::string& { return a.chain; });
    if (k == "resid" || k == "resnum") return ranges(token, [](const Atom& a) { return a.resid; });
    if (k == "index") return ranges(token, [](const Atom& a) { return a.index; });
    if (k == "bynum") return ranges(token, [](const Atom& a) { return a.index + 1; });
    unknown(token);
  }

  [[noreturn]] void unknown(const Token& token) const {
    if (std::find(kUnsupported.begin(), kUnsupported.end(), token.text) != kUnsupported.end())
      fail(token.column, fmt::format("'{}' is an MDAnalysis keyword that Trails does not "
                                     "support (supported: {})",
                                     token.text, supported_list()));
    std::string_view best;
    std::size_t best_distance = 3;
    for (std::string_view k : kKeywords) {
      const std::size_t d = edit_distance(token.text, k);
      if (d < best_distance) best = k, best_distance = d;
    }
    std::string what = fmt::format("unknown keyword '{}'", token.text);
    if (!best.empty()) fail(token.column, fmt::format("{}; did you mean '{}'?", what, best));
    fail(token.column, fmt::format("{}; selections start with one of: {}", what, supported_list()));
  }

  static std::string supported_list() {
    std::string s;
    for (std::string_view k : kKeywords) {
      if (k == "chainID") continue;
      if (!s.empty()) s += ' ';
      s += k;
    }
    return s;
  }

  std::vector<Token> values(const Token& keyword) {
    std::vector<Token> out;
    while (const Token* t = peek()) {
      if (is_keyword(t->text)) break;
      out.push_back(*t);
      ++pos_;
    }
    if (out.empty())
      fail(peek() ? peek()->column : expression_.size() + 1,
           fmt::format("'{}' needs at least one value (e.g. '{} {}')", keyword.text, keyword.text,
                       example(keyword.text)));
    return out;
  }

  static std::string_view example(std::string_view keyword) {
    if (keyword == "name") return "CA";
    if (keyword == "resname") return "ALA";
    if (keyword == "type" || keyword == "element") return "C";
    if (keyword == "segid" || keyword == "chainid" || keyword == "chainID") return "A";
    return "1-10";
  }

  template <class Field>
  Mask strings(const Token& keyword, Field field) {
    const std::vector<Token> patterns = values(keyword);
    return where([&](const Atom& a) {
      const std::string& value = field(a);
      for (const Token& p : patterns)
        if (glob_match(p.text, value)) return true;
      return false;
    });
  }

  // Values "5", "1-10", "1:10", "-3--1"; split forms "1 - 10", "1 : 10", "1 to 10", "1: 10"
  // are joined first (as MDAnalysis does).
  std::vector<Range> parse_ranges(const Token& keyword, const std::vector<Token>& items) const {
    std::vector<Token> joined;
    for (std::size_t i = 0; i < items.size(); ++i) {
      const std::string& s = items[i].text;
      if (s == "to" || s == ":" || s == "-") {
        if (joined.empty() || i + 1 == items.size())
          fail(items[i].column, fmt::format("range separator '{}' needs a number on each side", s));
        joined.back().text += " " + s + " " + items[++i].text;
      } else if (!joined.empty() &&
                 (s.starts_with("--") || s.starts_with("to") || s.front() == ':' ||
                  joined.back().text.ends_with(':') || joined.back().text.ends_with('-') ||
                  joined.back().text.ends_with("to"))) {
        joined.back().text += " " + s;
      } else {
        joined.push_back(items[i]);
      }
    }
    std::vector<Range> out;
    for (const Token& item : joined) {
      const auto range = parse_range(item.text);
      if (!range)
        fail(item.column, fmt::format("bad value '{}' for '{}'; expected integers or ranges "
                                      "like 5, 1-10, 1:10 or 1 to 10",
                                      item.text, keyword.text));
      out.push_back(*range);
    }
    return out;
  }

  template <class Field>
  Mask ranges(const Token& keyword, Field field) {
    const std::vector<Range> rs = parse_ranges(keyword, values(keyword));
    return where([&](const Atom& a) {
      const int v = field(a);
      for (const Range& r : rs)
        if (r.lo <= v && v <= r.hi) return true;
      return false;
    });
  }

  const Topology& topology_;
  std::string_view expression_;
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
};

}  // namespace

std::vector<int> select(const Topology& topology, std::string_view expression) {
  return Parser(topology, expression).run();
}

std::vector<int> select_nonempty(const Topology& topology, std::string_view expression,
                                 std::string_view what) {
  std::vector<int> indices = select(topology, expression);
  if (indices.empty())
    throw core::InputError(
        fmt::format("{}: the atom selection \"{}\" matches no atom of the "
                    "{}-atom topology",
                    what, expression, topology.n_atoms()));
  return indices;
}

}  // namespace trails::structure
