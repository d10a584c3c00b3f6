#include "trails/report/html/html_page.h"

#include <fmt/format.h>

#include "trails/core/base64.h"

namespace trails::report::html {
namespace {

// One style sheet for the page: readable without a framework, printable, pictures never wider
// than the window.
constexpr const char* kStyle = R"(
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 1.5em auto;
       max-width: 1150px; padding: 0 1em; color: #1d232a; line-height: 1.4; }
h1 { font-size: 1.6em; border-bottom: 2px solid #1b3a8a; padding-bottom: .2em; }
h2 { font-size: 1.25em; color: #1b3a8a; margin-top: 1.8em; border-bottom: 1px solid #c8cfd8; }
h3 { font-size: 1.05em; margin-bottom: .3em; }
nav a { margin-right: 1em; }
table { border-collapse: collapse; margin: .5em 0 1em; font-size: .92em; }
th, td { border: 1px solid #c8cfd8; padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: #eef1f5; }
table.kv th { width: 14em; }
tbody tr:nth-child(even) { background: #f7f8fa; }
pre { background: #f4f5f7; border: 1px solid #dde1e6; padding: .6em; overflow-x: auto;
      font-size: .85em; white-space: pre-wrap; word-break: break-word; }
figure { margin: 1em 0 2em; }
figure img { max-width: 100%; height: auto; border: 1px solid #dde1e6; }
figcaption { font-size: .92em; color: #39424e; margin-top: .3em; }
figcaption b { color: #1d232a; }
p.note { color: #5a6472; font-style: italic; }
p.ok { color: #1e6b30; font-weight: bold; }
p.bad { color: #a3201b; font-weight: bold; }
details { margin: .4em 0; }
summary { cursor: pointer; }
)";

std::string cells(const std::vector<std::string>& row, const char* tag) {
  std::string out = "<tr>";
  for (const auto& c : row) out += fmt::format("<{0}>{1}</{0}>", tag, escape(c));
  return out + "</tr>\n";
}

}  // namespace

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string base64(std::string_view bytes) { return core::base64_encode(bytes); }

std::string data_uri(std::string_view mime, std::string_view bytes) {
  return fmt::format("data:{};base64,{}", mime, base64(bytes));
}

std::string table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows) {
  std::string out = "<table>\n<thead>" + cells(header, "th") + "</thead>\n<tbody>\n";
  for (const auto& r : rows) out += cells(r, "td");
  return out + "</tbody>\n</table>\n";
}

std::string key_values(const std::vector<std::pair<std::string, std::string>>& rows) {
  std::string out = "<table class=\"kv\">\n<tbody>\n";
  for (const auto& [k, v] : rows) {
    out += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", escape(k), escape(v));
  }
  return out + "</tbody>\n</table>\n";
}

std::string pre(std::string_view text) { return "<pre>" + escape(text) + "</pre>\n"; }

std::string paragraph(std::string_view text, std::string_view css_class) {
  if (css_class.empty()) return "<p>" + escape(text) + "</p>\n";
  return fmt::format("<p class=\"{}\">{}</p>\n", escape(css_class), escape(text));
}

std::string section(std::string_view id, std::string_view title, std::string_view html) {
  return fmt::format("<section id=\"{}\">\n<h2>{}</h2>\n{}</section>\n", escape(id), escape(title),
                     html);
}

std::string figure(std::string_view png_bytes, std::string_view alt, std::string_view title,
                   std::string_view caption) {
  return fmt::format(
      "<figure>\n<img src=\"{}\" alt=\"{}\">\n<figcaption><b>{}</b> {}</figcaption>\n</figure>\n",
      data_uri("image/png", png_bytes), escape(alt), escape(title), escape(caption));
}

std::string details(std::string_view summary, std::string_view html, bool open) {
  return fmt::format("<details{}><summary>{}</summary>\n{}</details>\n", open ? " open" : "",
                     escape(summary), html);
}

std::string page(std::string_view title, std::string_view body_html) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>{0}</title>\n<style>{1}</style>\n</head>\n<body>\n<h1>{0}</h1>\n{2}</body>\n"
      "</html>\n",
      escape(title), kStyle, body_html);
}

}  // namespace trails::report::html
