#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sieve::server {

// The API keys a client may present as "Authorization: Bearer KEY". None:
// no check. Keys are never logged.
class ApiKeys {
 public:
  ApiKeys() = default;
  explicit ApiKeys(std::vector<std::string> keys);

  // Keys from the environment variable `variable` (comma-separated) and from
  // `file` (one per line; blank lines and lines starting with '#' skipped).
  // Throws sieve::Error when the file cannot be read or holds no key.
  static ApiKeys load(const char* variable, const std::optional<std::filesystem::path>& file);

  [[nodiscard]] bool enabled() const noexcept { return !keys_.empty(); }
  // Whether an Authorization header value carries one of the keys. Every
  // key is compared in full whatever matches, so the time taken does not
  // tell how much of a guess was right.
  [[nodiscard]] bool accepts(std::string_view authorization) const;

 private:
  std::vector<std::string> keys_;
};

// Equality of two strings in time that depends only on their lengths.
bool constant_time_equal(std::string_view a, std::string_view b);

}  // namespace sieve::server
