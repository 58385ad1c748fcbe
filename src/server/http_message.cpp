#include "server/http_message.hpp"

#include <algorithm>

namespace sieve::server {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

}  // namespace

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower(x) == lower(y); });
}

std::string Request::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (equal_ignoring_case(key, name)) return value;
  }
  return {};
}

bool Request::has_param(std::string_view name) const {
  return std::any_of(params.begin(), params.end(), [&](const auto& p) { return p.first == name; });
}

std::string Request::param(std::string_view name) const {
  for (const auto& [key, value] : params) {
    if (key == name) return value;
  }
  return {};
}

void Response::set_header(std::string name, std::string value) {
  for (auto& [key, existing] : headers) {
    if (equal_ignoring_case(key, name)) {
      existing = std::move(value);
      return;
    }
  }
  headers.emplace_back(std::move(name), std::move(value));
}

std::optional<std::string_view> Response::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (equal_ignoring_case(key, name)) return value;
  }
  return std::nullopt;
}

std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size()) return std::nullopt;
      const int high = hex_value(text[i + 1]);
      const int low = hex_value(text[i + 2]);
      if (high < 0 || low < 0) return std::nullopt;
      out += static_cast<char>(high * 16 + low);
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out += ' ';
    } else {
      out += c;
    }
  }
  // A NUL byte has no place in a path or a parameter.
  if (out.find('\0') != std::string::npos) return std::nullopt;
  return out;
}

std::optional<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>> split_target(
    std::string_view target) {
  if (target.empty() || target.front() != '/') return std::nullopt;
  const std::size_t question = target.find('?');
  auto path = percent_decode(target.substr(0, question), false);
  if (!path) return std::nullopt;
  std::vector<std::pair<std::string, std::string>> params;
  if (question != std::string_view::npos) {
    std::string_view query = target.substr(question + 1);
    while (!query.empty()) {
      const std::size_t amp = query.find('&');
      const std::string_view item = query.substr(0, amp);
      query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
      if (item.empty()) continue;
      const std::size_t equals = item.find('=');
      auto key = percent_decode(item.substr(0, equals), true);
      auto value =
          percent_decode(equals == std::string_view::npos ? std::string_view() : item.substr(equals + 1), true);
      if (!key || !value) return std::nullopt;
      params.emplace_back(std::move(*key), std::move(*value));
    }
  }
  return std::make_pair(std::move(*path), std::move(params));
}

}  // namespace sieve::server
