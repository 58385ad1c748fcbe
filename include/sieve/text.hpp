#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace sieve {

// The items of `range` joined by `separator` ("a, b, c"), each turned into
// text by `to_text` (the item itself by default): how messages, logs and
// generated scripts list names.
template <typename Range, typename ToText = std::identity>
std::string join(const Range& range, std::string_view separator, ToText to_text = {}) {
  std::string out;
  bool first = true;
  for (const auto& item : range) {
    if (!first) out += separator;
    first = false;
    out += std::invoke(to_text, item);
  }
  return out;
}

}  // namespace sieve
