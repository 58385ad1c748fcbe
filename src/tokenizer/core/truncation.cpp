#include "tokenizer/core/truncation.hpp"

#include <algorithm>

#include "sieve/error.hpp"

namespace sieve::tokenizer {
namespace {

template <typename T>
void keep(std::vector<T>& v, std::size_t length, Direction direction) {
  if (v.size() <= length) return;
  if (direction == Direction::kRight) {
    v.resize(length);
  } else {
    v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() - length));
  }
}

template <typename T>
void pad(std::vector<T>& v, std::size_t length, T value, Direction direction) {
  if (v.size() >= length) return;
  if (direction == Direction::kRight) {
    v.resize(length, value);
  } else {
    v.insert(v.begin(), length - v.size(), value);
  }
}

}  // namespace

void truncate_encoding(Encoding& encoding, std::size_t length, Direction direction) {
  keep(encoding.ids, length, direction);
  keep(encoding.type_ids, length, direction);
  keep(encoding.offsets, length, direction);
  keep(encoding.special_tokens_mask, length, direction);
  keep(encoding.attention_mask, length, direction);
}

void truncate_encodings(Encoding& first, std::optional<Encoding>& second, const TruncationParams& params) {
  const std::size_t total = first.size() + (second ? second->size() : 0);
  if (total <= params.max_length) return;
  const std::size_t to_remove = total - params.max_length;
  switch (params.strategy) {
    case TruncationStrategy::kLongestFirst: {
      if (!second) {
        truncate_encoding(first, total - to_remove, params.direction);
        return;
      }
      std::size_t n1 = first.size();
      std::size_t n2 = second->size();
      const bool swapped = n1 > n2;
      if (swapped) std::swap(n1, n2);
      if (n1 > params.max_length) {
        n2 = n1;
      } else {
        n2 = std::max(n1, params.max_length - n1);
      }
      if (n1 + n2 > params.max_length) {
        n1 = params.max_length / 2;
        n2 = n1 + params.max_length % 2;
      }
      if (swapped) std::swap(n1, n2);
      truncate_encoding(first, n1, params.direction);
      truncate_encoding(*second, n2, params.direction);
      return;
    }
    case TruncationStrategy::kOnlyFirst:
    case TruncationStrategy::kOnlySecond: {
      Encoding* target = &first;
      if (params.strategy == TruncationStrategy::kOnlySecond) {
        if (!second) throw Error(ErrorCode::kInvalidArgument, "truncation only_second needs a pair of inputs");
        target = &*second;
      }
      if (target->size() <= to_remove) {
        throw Error(ErrorCode::kInvalidInput, "truncation: the sequence to truncate is shorter than the excess of " +
                                                  std::to_string(to_remove) + " tokens; use longest_first");
      }
      truncate_encoding(*target, target->size() - to_remove, params.direction);
      return;
    }
  }
}

std::size_t padded_length(std::size_t longest, const PaddingParams& params) {
  std::size_t length = params.fixed_length.value_or(longest);
  if (params.pad_to_multiple_of > 0 && length % params.pad_to_multiple_of != 0) {
    length += params.pad_to_multiple_of - length % params.pad_to_multiple_of;
  }
  return length;
}

void pad_encoding(Encoding& encoding, std::size_t length, const PaddingParams& params) {
  pad(encoding.ids, length, params.pad_id, params.direction);
  pad(encoding.type_ids, length, params.pad_type_id, params.direction);
  pad(encoding.offsets, length, Offsets{0, 0}, params.direction);
  pad(encoding.special_tokens_mask, length, std::uint8_t{1}, params.direction);
  pad(encoding.attention_mask, length, std::uint8_t{0}, params.direction);
}

}  // namespace sieve::tokenizer
