#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sieve::tokenizer {

// A compiled regular expression for the patterns tokenizer.json files carry
// (written for Oniguruma): PCRE2 in UTF mode with Unicode properties (UCP),
// so \s, \w, \d and \p{..} follow Unicode, with JIT when available.
// Matching is const and thread-safe: match data is per thread.
class Regex {
 public:
  // Throws sieve::Error (kParse) naming the pattern and the position of the problem.
  explicit Regex(std::string_view pattern);
  // A literal string, matched as is.
  static Regex literal(std::string_view text);

  Regex(Regex&&) noexcept;
  Regex& operator=(Regex&&) noexcept;
  ~Regex();

  [[nodiscard]] const std::string& pattern() const noexcept { return pattern_; }

  // Non-overlapping matches [begin, end) in `text` (valid UTF-8), left to right.
  // Empty matches are reported as the onig crate reports them (see regex.cpp).
  void find_all(std::string_view text, std::vector<std::pair<std::size_t, std::size_t>>& out) const;

 private:
  struct Compiled;
  Regex() = default;
  std::string pattern_;
  std::unique_ptr<Compiled> compiled_;
};

}  // namespace sieve::tokenizer
