#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sieve/tokenizer.hpp"

namespace sieve::tokenizer {

// A piece of text as the model will see it, with, for every byte, the byte
// range of the original input it came from. Normalizers rebuild it through
// a Builder; pre-tokenizers cut it into slices; offsets of tokens are mapped
// back through it to the user's text.
class NormalizedString {
 public:
  NormalizedString() = default;
  // `base` is where `original` starts in the whole input.
  explicit NormalizedString(std::string_view original, std::uint32_t base = 0);

  [[nodiscard]] const std::string& get() const noexcept { return normalized_; }
  [[nodiscard]] bool empty() const noexcept { return normalized_.empty(); }
  [[nodiscard]] std::size_t size() const noexcept { return normalized_.size(); }

  // Original byte range covered by normalized bytes [begin, end).
  [[nodiscard]] Offsets original_offsets(std::size_t begin, std::size_t end) const noexcept;
  // Where an empty piece would sit in the original.
  [[nodiscard]] Offsets original_span() const noexcept { return span_; }

  [[nodiscard]] NormalizedString slice(std::size_t begin, std::size_t end) const;

  // Collects a new normalized text; every character emitted carries the
  // original range of the character it was derived from.
  class Builder;

  // Visits each character: callback(cp, byte_begin, byte_end, original_offsets).
  template <typename Fn>
  void for_each_char(Fn&& fn) const;

 private:
  std::string normalized_;
  std::vector<Offsets> alignments_;  // one per byte of normalized_
  Offsets span_{0, 0};
};

class NormalizedString::Builder {
 public:
  explicit Builder(const NormalizedString& from);
  void emit(char32_t cp, Offsets original);
  void emit_ascii(char c, Offsets original);
  NormalizedString finish() &&;

 private:
  NormalizedString result_;
};

}  // namespace sieve::tokenizer

#include "tokenizer/core/unicode.hpp"

namespace sieve::tokenizer {

template <typename Fn>
void NormalizedString::for_each_char(Fn&& fn) const {
  std::size_t pos = 0;
  const std::string_view text = normalized_;
  while (pos < text.size()) {
    char32_t cp = 0;
    std::size_t len = unicode::decode(text, pos, cp);
    if (len == 0) {  // cannot happen: inputs are validated before they get here
      cp = unicode::kReplacementChar;
      len = 1;
    }
    fn(cp, pos, pos + len, original_offsets(pos, pos + len));
    pos += len;
  }
}

}  // namespace sieve::tokenizer
