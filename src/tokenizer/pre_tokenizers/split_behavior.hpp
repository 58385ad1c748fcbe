#pragma once

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"
#include "tokenizer/core/unicode.hpp"

// Hugging Face's NormalizedString::split, shared by the pre-tokenizers that
// cut text on a pattern. A pattern first covers the text with consecutive
// stretches, each marked as matched or not (HF's Pattern::find_matches); the
// behaviour then decides which stretches become pieces and which are merged
// or dropped.
namespace sieve::tokenizer {

// What happens to the text a pattern matched.
enum class SplitBehavior {
  kRemoved,             // dropped
  kIsolated,            // a piece of its own
  kMergedWithPrevious,  // appended to the piece before it
  kMergedWithNext,      // prepended to the piece after it
  kContiguous,          // a piece of its own, joined with matches right after it
};

// Reads a "behavior" value: "Removed", "Isolated", "MergedWithPrevious", "MergedWithNext" or "Contiguous".
SplitBehavior split_behavior_from_json(const JsonView& node);

// Reads a string that must hold exactly one character, as HF's `char` fields.
char32_t single_char_from_json(const JsonView& node);

using ByteRange = std::pair<std::size_t, std::size_t>;

// A stretch of the text and whether the pattern matched it.
struct PatternRange {
  std::size_t begin;
  std::size_t end;
  bool is_match;
};

// HF's find_matches for a regex: the matches of Regex::find_all (empty ones
// included) with the text between them as unmatched stretches.
void ranges_from_matches(std::size_t text_size, const std::vector<ByteRange>& matches, std::vector<PatternRange>& out);

// HF's find_matches for a character predicate: each matching character is a
// stretch of its own, and the characters between them one unmatched stretch.
template <typename Predicate>
void ranges_from_predicate(std::string_view text, Predicate&& matches, std::vector<PatternRange>& out) {
  out.clear();
  if (text.empty()) {
    out.push_back({0, 0, false});
    return;
  }
  std::size_t unmatched_begin = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    char32_t cp = 0;
    std::size_t len = 1;
    const auto lead = static_cast<unsigned char>(text[pos]);
    if (lead < 0x80) {
      cp = lead;
    } else {
      len = unicode::decode(text, pos, cp);
      if (len == 0) {  // inputs are validated before they get here
        cp = unicode::kReplacementChar;
        len = 1;
      }
    }
    if (matches(cp)) {
      if (unmatched_begin < pos) out.push_back({unmatched_begin, pos, false});
      out.push_back({pos, pos + len, true});
      unmatched_begin = pos + len;
    }
    pos += len;
  }
  if (unmatched_begin < text.size()) out.push_back({unmatched_begin, text.size(), false});
}

// Applies `behavior` (after flipping every mark when `invert`, as HF's Invert
// pattern does) and appends the byte ranges of the resulting pieces; some may
// be empty.
void apply_split_behavior(const std::vector<PatternRange>& ranges, SplitBehavior behavior, bool invert,
                          std::vector<ByteRange>& pieces);

// Appends a slice of `text` for each non-empty piece: HF drops empty pieces.
void append_slices(const NormalizedString& text, const std::vector<ByteRange>& pieces, std::vector<Split>& out);

// Scratch buffers reused by every split on this thread, so that splitting
// allocates only the pieces themselves.
struct SplitScratch {
  std::vector<ByteRange> matches;
  std::vector<PatternRange> ranges;
  std::vector<ByteRange> pieces;
};
SplitScratch& split_scratch();

// Splits `text` on the stretches of `ranges` and appends the pieces.
void split_on_ranges(const NormalizedString& text, const std::vector<PatternRange>& ranges, SplitBehavior behavior,
                     bool invert, std::vector<Split>& out);

// Splits `text` where `matches(cp)` holds.
template <typename Predicate>
void split_on_predicate(const NormalizedString& text, Predicate&& matches, SplitBehavior behavior, bool invert,
                        std::vector<Split>& out) {
  SplitScratch& scratch = split_scratch();
  ranges_from_predicate(text.get(), std::forward<Predicate>(matches), scratch.ranges);
  split_on_ranges(text, scratch.ranges, behavior, invert, out);
}

// HF's PreTokenizedString::split: `split_text(text, out)` appends the pieces
// of each split not yet tokenized (it may move `text` out when it keeps it
// whole); tokenized splits (added tokens) are kept as they are.
template <typename SplitText>
void split_each(std::vector<Split>& splits, SplitText&& split_text) {
  std::vector<Split> out;
  out.reserve(splits.size() * 4);
  for (Split& split : splits) {
    if (split.tokenized) {
      out.push_back(std::move(split));
      continue;
    }
    split_text(split.text, out);
  }
  splits = std::move(out);
}

}  // namespace sieve::tokenizer
