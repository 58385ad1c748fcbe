#pragma once

#include <cstddef>
#include <cstdint>

#include "tokenizer/core/normalized_string.hpp"

namespace sieve::tokenizer {

// One character of a rewritten text with Hugging Face's `changes` count
// (NormalizedString::transform): 0 replaces the next source character, a
// positive count inserts a character, -N replaces the next source character
// and removes the N after it.
struct CharChange {
  char32_t cp;
  std::ptrdiff_t change;
};

// Rewrites a NormalizedString exactly as Hugging Face's transform_range
// assigns alignments, including its quirks, since offsets must match:
//  - a replacing character takes the range of the source character at the
//    cursor, an inserted one the range of the byte just before the cursor
//    (an empty range at the start of the piece when there is none);
//  - the cursor only moves as changes consume source characters, so a
//    sequence whose changes do not add up (Precompiled does this) shifts the
//    ranges of what follows, and whatever of a range is left unconsumed is
//    dropped.
// Ranges must be rewritten left to right; text between them is kept as is.
class Transformer {
 public:
  explicit Transformer(const NormalizedString& source);

  // Starts rewriting source bytes [cursor, end), after skipping
  // `initial_removed_chars` characters of it without output.
  void begin_range(std::size_t end, std::size_t initial_removed_chars = 0);
  void push(char32_t cp, std::ptrdiff_t change);
  // Drops what the changes of the range did not consume.
  void end_range();
  // Copies source characters up to byte `end` unchanged.
  void keep_until(std::size_t end);

  // Keeps the rest of the source.
  NormalizedString finish() &&;

 private:
  void consume_chars(std::size_t count);
  [[nodiscard]] Offsets alignment_at(std::size_t byte) const noexcept;

  const NormalizedString& source_;
  NormalizedString::Builder builder_;
  std::size_t cursor_ = 0;
  std::size_t range_end_ = 0;
};

}  // namespace sieve::tokenizer
