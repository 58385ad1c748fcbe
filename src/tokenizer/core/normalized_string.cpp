#include "tokenizer/core/normalized_string.hpp"

#include <cassert>

#include "tokenizer/core/unicode.hpp"

namespace sieve::tokenizer {

NormalizedString::NormalizedString(std::string_view original, std::uint32_t base)
    : normalized_(original), span_{base, base + static_cast<std::uint32_t>(original.size())} {
  alignments_.reserve(original.size());
  std::size_t pos = 0;
  while (pos < original.size()) {
    const std::size_t len = unicode::sequence_length(static_cast<unsigned char>(original[pos]));
    const auto begin = base + static_cast<std::uint32_t>(pos);
    const auto end = base + static_cast<std::uint32_t>(std::min(pos + len, original.size()));
    for (std::size_t i = 0; i < len && pos + i < original.size(); ++i) alignments_.emplace_back(begin, end);
    pos += len;
  }
}

Offsets NormalizedString::original_offsets(std::size_t begin, std::size_t end) const noexcept {
  if (begin >= end || begin >= alignments_.size()) {
    // An empty range sits just after the character before it.
    if (begin > 0 && begin <= alignments_.size()) return {alignments_[begin - 1].second, alignments_[begin - 1].second};
    return {span_.first, span_.first};
  }
  return {alignments_[begin].first, alignments_[end - 1].second};
}

NormalizedString NormalizedString::slice(std::size_t begin, std::size_t end) const {
  NormalizedString out;
  out.normalized_.assign(normalized_, begin, end - begin);
  out.alignments_.assign(alignments_.begin() + static_cast<std::ptrdiff_t>(begin),
                         alignments_.begin() + static_cast<std::ptrdiff_t>(end));
  out.span_ = original_offsets(begin, end);
  return out;
}

NormalizedString::Builder::Builder(const NormalizedString& from) {
  result_.span_ = from.span_;
  result_.normalized_.reserve(from.normalized_.size());
  result_.alignments_.reserve(from.alignments_.size());
}

void NormalizedString::Builder::emit(char32_t cp, Offsets original) {
  const std::size_t before = result_.normalized_.size();
  unicode::append_utf8(result_.normalized_, cp);
  // One push per byte: a ranged insert costs more for these 1 to 4 bytes.
  for (std::size_t k = before; k < result_.normalized_.size(); ++k) result_.alignments_.push_back(original);
}

void NormalizedString::Builder::emit_ascii(char c, Offsets original) {
  result_.normalized_.push_back(c);
  result_.alignments_.push_back(original);
}

NormalizedString NormalizedString::Builder::finish() && {
  return std::move(result_);
}

}  // namespace sieve::tokenizer
