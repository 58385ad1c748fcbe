#include "sieve/json_text.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace sieve {

void append_float(std::string& out, float value) {
  if (!std::isfinite(value)) {
    // JSON has no NaN or infinity; null keeps the document valid and visible.
    out += "null";
    return;
  }
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, result.ptr);
}

void append_json_string(std::string& out, std::string_view text) {
  out.push_back('"');
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (u < 0x20 || u == 0x7F) {
          char buffer[8];
          std::snprintf(buffer, sizeof(buffer), "\\u%04x", u);
          out += buffer;
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

void append_sparse_json(std::string& out, std::span<const std::uint32_t> ids, std::span<const float> weights,
                        const std::function<std::string_view(std::uint32_t)>& token) {
  out.push_back('[');
  for (std::size_t i = 0; i < ids.size() && i < weights.size(); ++i) {
    if (i) out.push_back(',');
    out += "{\"index\":";
    out += std::to_string(ids[i]);
    out += ",\"value\":";
    append_float(out, weights[i]);
    if (token) {
      out += ",\"token\":";
      append_json_string(out, token(ids[i]));
    }
    out.push_back('}');
  }
  out.push_back(']');
}

}  // namespace sieve
