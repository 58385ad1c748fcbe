#include "tokenizer/pre_tokenizers/split_behavior.hpp"

#include <algorithm>
#include <string>

namespace sieve::tokenizer {

SplitBehavior split_behavior_from_json(const JsonView& node) {
  const std::string name = node.as_string();
  if (name == "Removed") return SplitBehavior::kRemoved;
  if (name == "Isolated") return SplitBehavior::kIsolated;
  if (name == "MergedWithPrevious") return SplitBehavior::kMergedWithPrevious;
  if (name == "MergedWithNext") return SplitBehavior::kMergedWithNext;
  if (name == "Contiguous") return SplitBehavior::kContiguous;
  node.fail("unknown split behavior \"" + name +
            "\" (expected Removed, Isolated, MergedWithPrevious, MergedWithNext or Contiguous)");
}

char32_t single_char_from_json(const JsonView& node) {
  const std::string text = node.as_string();
  char32_t cp = 0;
  const std::size_t length = text.empty() ? 0 : unicode::decode(text, 0, cp);
  if (length == 0 || length != text.size()) node.fail("expected a single character, got \"" + text + "\"");
  return cp;
}

void ranges_from_matches(std::size_t text_size, const std::vector<ByteRange>& matches, std::vector<PatternRange>& out) {
  out.clear();
  if (text_size == 0) {
    out.push_back({0, 0, false});
    return;
  }
  std::size_t previous_end = 0;
  for (const auto& [begin, end] : matches) {
    if (previous_end != begin) out.push_back({previous_end, begin, false});
    out.push_back({begin, end, true});
    previous_end = end;
  }
  if (previous_end != text_size) out.push_back({previous_end, text_size, false});
}

void apply_split_behavior(const std::vector<PatternRange>& ranges, SplitBehavior behavior, bool invert,
                          std::vector<ByteRange>& pieces) {
  // The folds below are HF's, step for step: their handling of empty
  // matches and of a match at either end decides where pieces start.
  bool previous_match = false;
  switch (behavior) {
    case SplitBehavior::kIsolated:
      for (const auto& r : ranges) pieces.emplace_back(r.begin, r.end);
      break;
    case SplitBehavior::kRemoved:
      for (const auto& r : ranges) {
        if (r.is_match == invert) pieces.emplace_back(r.begin, r.end);
      }
      break;
    case SplitBehavior::kContiguous: {
      const std::size_t first = pieces.size();
      for (const auto& r : ranges) {
        const bool is_match = r.is_match != invert;
        if (is_match == previous_match && pieces.size() > first) {
          pieces.back().second = r.end;
        } else {
          pieces.emplace_back(r.begin, r.end);
        }
        previous_match = is_match;
      }
      break;
    }
    case SplitBehavior::kMergedWithPrevious: {
      const std::size_t first = pieces.size();
      for (const auto& r : ranges) {
        const bool is_match = r.is_match != invert;
        if (is_match && !previous_match && pieces.size() > first) {
          pieces.back().second = r.end;
        } else {
          pieces.emplace_back(r.begin, r.end);
        }
        previous_match = is_match;
      }
      break;
    }
    case SplitBehavior::kMergedWithNext: {
      // HF folds from the end: a match joins the piece that follows it.
      const std::size_t first = pieces.size();
      for (auto it = ranges.rbegin(); it != ranges.rend(); ++it) {
        const bool is_match = it->is_match != invert;
        if (is_match && !previous_match && pieces.size() > first) {
          pieces.back().first = it->begin;
        } else {
          pieces.emplace_back(it->begin, it->end);
        }
        previous_match = is_match;
      }
      std::reverse(pieces.begin() + static_cast<std::ptrdiff_t>(first), pieces.end());
      break;
    }
  }
}

void append_slices(const NormalizedString& text, const std::vector<ByteRange>& pieces, std::vector<Split>& out) {
  for (const auto& [begin, end] : pieces) {
    if (begin < end) out.push_back(Split{text.slice(begin, end), {}, false});
  }
}

SplitScratch& split_scratch() {
  thread_local SplitScratch scratch;
  return scratch;
}

void split_on_ranges(const NormalizedString& text, const std::vector<PatternRange>& ranges, SplitBehavior behavior,
                     bool invert, std::vector<Split>& out) {
  std::vector<ByteRange>& pieces = split_scratch().pieces;
  pieces.clear();
  apply_split_behavior(ranges, behavior, invert, pieces);
  append_slices(text, pieces, out);
}

}  // namespace sieve::tokenizer
