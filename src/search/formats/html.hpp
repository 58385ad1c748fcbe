#pragma once

#include <string>
#include <string_view>

namespace sieve::search {

// Visible text of an HTML document, block elements on lines of their own; `title` gets <title>, else the first
// <h1>, else "". `embedded`: HTML inside a Markdown file, whose bytes are the file's UTF-8 whatever a <meta> in
// it claims. A page that is not valid UTF-8 and names no charset is read as Windows-1252; one that claims UTF-8
// has its bad bytes replaced; either sets `warning`.
std::string html_text(std::string_view content, std::string* title, const std::string& source, bool embedded,
                      std::string* warning = nullptr);

}  // namespace sieve::search
