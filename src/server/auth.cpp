#include "server/auth.hpp"

#include <cstdlib>
#include <fstream>

#include "sieve/error.hpp"

namespace sieve::server {
namespace {

std::string trim(std::string_view s) {
  const auto begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  const auto end = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(begin, end - begin + 1));
}

}  // namespace

ApiKeys::ApiKeys(std::vector<std::string> keys) : keys_(std::move(keys)) {}

ApiKeys ApiKeys::load(const char* variable, const std::optional<std::filesystem::path>& file) {
  std::vector<std::string> keys;
  if (const char* value = std::getenv(variable); value != nullptr) {
    std::string_view rest(value);
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      std::string key = trim(rest.substr(0, comma));
      if (!key.empty()) keys.push_back(std::move(key));
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
  }
  if (file) {
    std::ifstream in(*file);
    if (!in) throw Error(ErrorCode::kNotFound, "cannot read the API key file " + file->string());
    std::string line;
    std::size_t found = 0;
    while (std::getline(in, line)) {
      std::string key = trim(line);
      if (key.empty() || key[0] == '#') continue;
      keys.push_back(std::move(key));
      ++found;
    }
    if (found == 0) throw Error(ErrorCode::kParse, "the API key file " + file->string() + " holds no key");
  }
  return ApiKeys(std::move(keys));
}

bool ApiKeys::accepts(std::string_view authorization) const {
  constexpr std::string_view kScheme = "Bearer ";
  if (authorization.size() < kScheme.size()) return false;
  // The scheme is case-insensitive (RFC 7235); the key is not.
  for (std::size_t i = 0; i < kScheme.size(); ++i) {
    const char c = authorization[i];
    const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    const char want = (kScheme[i] >= 'A' && kScheme[i] <= 'Z') ? static_cast<char>(kScheme[i] - 'A' + 'a') : kScheme[i];
    if (lower != want) return false;
  }
  const std::string_view presented = authorization.substr(kScheme.size());
  bool match = false;
  for (const std::string& key : keys_) match = constant_time_equal(presented, key) || match;
  return match;
}

bool constant_time_equal(std::string_view a, std::string_view b) {
  // Runs over the longer string whatever the contents; the length
  // difference joins the accumulated difference.
  const std::size_t n = std::max(a.size(), b.size());
  unsigned difference = a.size() == b.size() ? 0U : 1U;
  for (std::size_t i = 0; i < n; ++i) {
    const auto x = static_cast<unsigned char>(i < a.size() ? a[i] : 0);
    const auto y = static_cast<unsigned char>(i < b.size() ? b[i] : 0);
    difference |= static_cast<unsigned>(x ^ y);
  }
  return difference == 0;
}

}  // namespace sieve::server
