#include "tokenizer/normalizers/transform.hpp"

#include <algorithm>

#include "tokenizer/core/unicode.hpp"

namespace sieve::tokenizer {

Transformer::Transformer(const NormalizedString& source) : source_(source), builder_(source) {}

Offsets Transformer::alignment_at(std::size_t byte) const noexcept {
  if (byte < source_.size()) return source_.original_offsets(byte, byte + 1);
  // Past the end Hugging Face would panic; the end of the piece is the
  // nearest sensible answer.
  const Offsets span = source_.original_span();
  return {span.second, span.second};
}

void Transformer::consume_chars(std::size_t count) {
  const std::string& text = source_.get();
  while (count > 0 && cursor_ < range_end_) {
    cursor_ += unicode::sequence_length(static_cast<unsigned char>(text[cursor_]));
    --count;
  }
  cursor_ = std::min(cursor_, range_end_);
}

void Transformer::begin_range(std::size_t end, std::size_t initial_removed_chars) {
  range_end_ = std::min(end, source_.size());
  consume_chars(initial_removed_chars);
}

void Transformer::push(char32_t cp, std::ptrdiff_t change) {
  Offsets original;
  if (change > 0) {
    if (cursor_ == 0) {
      const Offsets span = source_.original_span();
      original = {span.first, span.first};
    } else {
      original = alignment_at(cursor_ - 1);
    }
  } else {
    original = alignment_at(cursor_);
    consume_chars(1 + static_cast<std::size_t>(-change));
  }
  if (cp < 0x80) {
    builder_.emit_ascii(static_cast<char>(cp), original);
  } else {
    builder_.emit(cp, original);
  }
}

void Transformer::end_range() {
  cursor_ = std::max(cursor_, range_end_);
}

void Transformer::keep_until(std::size_t end) {
  const std::string& text = source_.get();
  end = std::min(end, text.size());
  while (cursor_ < end) {
    const auto lead = static_cast<unsigned char>(text[cursor_]);
    const std::size_t len = unicode::sequence_length(lead);
    const Offsets original = source_.original_offsets(cursor_, cursor_ + 1);
    if (len == 1) {
      builder_.emit_ascii(static_cast<char>(lead), original);
    } else {
      char32_t cp = 0;
      unicode::decode(text, cursor_, cp);
      builder_.emit(cp, original);
    }
    cursor_ += len;
  }
}

NormalizedString Transformer::finish() && {
  keep_until(source_.size());
  return std::move(builder_).finish();
}

}  // namespace sieve::tokenizer
