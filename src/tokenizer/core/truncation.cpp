#include "tokenizer/core/truncation.hpp"

#include <algorithm>

#include "sieve/error.hpp"

namespace sieve::tokenizer {
namespace {

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

namespace {

template <typename T>
std::vector<T> range_of(const std::vector<T>& v, std::size_t begin, std::size_t end) {
  return std::vector<T>(v.begin() + static_cast<std::ptrdiff_t>(begin), v.begin() + static_cast<std::ptrdiff_t>(end));
}

Encoding window(const Encoding& e, std::size_t begin, std::size_t end) {
  Encoding out;
  out.ids = range_of(e.ids, begin, end);
  out.type_ids = range_of(e.type_ids, begin, end);
  out.offsets = range_of(e.offsets, begin, end);
  out.special_tokens_mask = range_of(e.special_tokens_mask, begin, end);
  out.attention_mask = range_of(e.attention_mask, begin, end);
  return out;
}

}  // namespace

void truncate_encoding(Encoding& encoding, std::size_t length, std::size_t stride, Direction direction) {
  const std::size_t total = encoding.size();
  if (length >= total) return;
  if (length == 0) {
    Encoding all = std::move(encoding);
    encoding = Encoding{};
    encoding.overflowing.push_back(std::move(all));
    return;
  }
  if (stride >= length) {
    throw Error(ErrorCode::kInvalidArgument, "truncation stride " + std::to_string(stride) +
                                                 " must be smaller than the length kept, " + std::to_string(length));
  }
  // Windows of `length` tokens, each starting `length - stride` after the
  // previous one, as Hugging Face's Encoding::truncate cuts them.
  const std::size_t step = length - stride;
  std::vector<std::pair<std::size_t, std::size_t>> windows;
  if (direction == Direction::kRight) {
    for (std::size_t begin = 0; begin < total; begin += step) {
      const std::size_t end = std::min(begin + length, total);
      windows.emplace_back(begin, end);
      if (end == total) break;
    }
  } else {
    for (std::size_t last = total; last > 0;) {
      const std::size_t end = last;
      const std::size_t begin = end < length ? 0 : end - length;
      windows.emplace_back(begin, end);
      if (begin == 0 || end <= step) break;
      last = end - step;
    }
  }
  Encoding main = window(encoding, windows[0].first, windows[0].second);
  for (std::size_t i = 1; i < windows.size(); ++i) {
    main.overflowing.push_back(window(encoding, windows[i].first, windows[i].second));
  }
  encoding = std::move(main);
}

void truncate_encodings(Encoding& first, std::optional<Encoding>& second, const TruncationParams& params) {
  if (params.max_length == 0) {
    truncate_encoding(first, 0, params.stride, params.direction);
    if (second) truncate_encoding(*second, 0, params.stride, params.direction);
    return;
  }
  const std::size_t total = first.size() + (second ? second->size() : 0);
  if (total <= params.max_length) return;
  const std::size_t to_remove = total - params.max_length;
  switch (params.strategy) {
    case TruncationStrategy::kLongestFirst: {
      if (!second) {
        truncate_encoding(first, total - to_remove, params.stride, params.direction);
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
      truncate_encoding(first, n1, params.stride, params.direction);
      truncate_encoding(*second, n2, params.stride, params.direction);
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
      truncate_encoding(*target, target->size() - to_remove, params.stride, params.direction);
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
  for (auto& o : encoding.overflowing) pad_encoding(o, length, params);
  pad(encoding.ids, length, params.pad_id, params.direction);
  pad(encoding.type_ids, length, params.pad_type_id, params.direction);
  pad(encoding.offsets, length, Offsets{0, 0}, params.direction);
  pad(encoding.special_tokens_mask, length, std::uint8_t{1}, params.direction);
  pad(encoding.attention_mask, length, std::uint8_t{0}, params.direction);
}

}  // namespace sieve::tokenizer
