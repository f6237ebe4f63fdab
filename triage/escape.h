// Escaping for the reports: text that came from a compiler or a foreign store
// (error texts, runner names, host names, paths) shown in Markdown, HTML or
// XML as text, never as markup.
#pragma once
#include <string>

namespace dlfuzz {

// Markdown prose inside a line: newlines become spaces, and the characters
// that start markup there (emphasis, code, links, raw HTML, entities, table
// cells) are backslash-escaped.
std::string md_text(const std::string& s);
// An inline code span: fenced with one more backtick than the longest run
// inside (CommonMark), on one line.
std::string md_code(const std::string& s);
// A fenced code block (with a trailing newline), fenced likewise.
std::string md_block(const std::string& s, const std::string& lang = "");

// HTML text and attribute values.
std::string html_text(const std::string& s);

// XML 1.0 text and attribute values: markup characters escaped; control
// characters XML forbids and bytes that are not well-formed UTF-8 become '?'.
std::string xml_text(const std::string& s);

}  // namespace dlfuzz
