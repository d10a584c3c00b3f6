// The pieces `trails report` builds its one self-contained HTML page from (docs/report.md, "The
// HTML run report"): escaping, base64 data: URIs for embedded pictures, tables and the page
// skeleton with its inline CSS. No JavaScript. Every function takes plain text and escapes it,
// except where a parameter is named `html` (markup built by these functions).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trails::report::html {

// &, <, >, " and ' as entities: safe in element content and in quoted attribute values.
std::string escape(std::string_view text);

// RFC 4648 base64 with padding (no line breaks).
std::string base64(std::string_view bytes);

// "data:MIME;base64,...".
std::string data_uri(std::string_view mime, std::string_view bytes);

// <table> with a header row; every cell is plain text.
std::string table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows);

// A two-column key/value table (class "kv"); keys and values are plain text.
std::string key_values(const std::vector<std::pair<std::string, std::string>>& rows);

// <pre> of plain text.
std::string pre(std::string_view text);

// <p> of plain text, with an optional class ("note", "ok", "bad").
std::string paragraph(std::string_view text, std::string_view css_class = "");

// <section id=ID><h2>TITLE</h2>html</section>.
std::string section(std::string_view id, std::string_view title, std::string_view html);

// <figure> with the PNG embedded as a data: URI, its alt text and caption (plain text).
std::string figure(std::string_view png_bytes, std::string_view alt, std::string_view title,
                   std::string_view caption);

// <details><summary>SUMMARY</summary>html</details>, unfolded when `open`.
std::string details(std::string_view summary, std::string_view html, bool open = false);

// The whole document: doctype, charset, the inline style sheet, <h1>TITLE</h1> and the body.
std::string page(std::string_view title, std::string_view body_html);

}  // namespace trails::report::html
