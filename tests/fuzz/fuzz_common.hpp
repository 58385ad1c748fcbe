#pragma once

// Shared by the tokenizer fuzz targets: turning fuzzer bytes into tokenizer
// settings, running the encode/decode calls, and checking what must hold for
// any input. A broken invariant or an exception other than sieve::Error
// aborts, which libFuzzer reports as a crash with its reproducer.

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sieve/error.hpp"
#include "sieve/tokenizer.hpp"
#include "tokenizer/core/unicode.hpp"

namespace sieve::fuzz {

[[noreturn]] inline void fail(const char* what, const std::string& detail = "") {
  std::fprintf(stderr, "FUZZ INVARIANT BROKEN: %s %s\n", what, detail.c_str());
  std::abort();
}

inline void check(bool condition, const char* what, const std::string& detail = "") {
  if (!condition) fail(what, detail);
}

// Runs `call`; sieve::Error is an accepted outcome, anything else is a bug.
// std::exception is not caught on purpose: a std::out_of_range from
// nlohmann or a std::length_error from a vector would be hidden by it.
template <typename Call>
bool accepts(Call&& call) {
  try {
    call();
    return true;
  } catch (const sieve::Error& e) {
    check(e.what()[0] != '\0', "sieve::Error with an empty message");
    return false;
  }
}

struct Settings {
  bool pair = false;
  bool add_special_tokens = true;
  std::optional<TruncationParams> truncation;
  std::optional<PaddingParams> padding;
  InvalidUtf8 invalid_utf8 = InvalidUtf8::kError;
  OffsetUnit offset_unit = OffsetUnit::kByte;
  bool skip_special_tokens = true;
  // Hugging Face emits whatever ids a post-processor names, in the
  // vocabulary or not; only real files are held to ids that exist.
  bool special_ids_in_vocab = true;
};

// Small lengths on purpose: they make truncation, strides and overflowing
// windows happen on short fuzz texts. The file's own settings are among the choices.
inline Settings pick_settings(FuzzedDataProvider& in, const std::optional<TruncationParams>& file_truncation,
                              const std::optional<PaddingParams>& file_padding) {
  Settings s;
  const auto flags = in.ConsumeIntegral<std::uint16_t>();
  s.pair = (flags & 0x1) != 0;
  s.add_special_tokens = (flags & 0x2) == 0;
  s.invalid_utf8 = (flags & 0x4) != 0 ? InvalidUtf8::kReplace : InvalidUtf8::kError;
  s.offset_unit = (flags & 0x8) != 0 ? OffsetUnit::kChar : OffsetUnit::kByte;
  s.skip_special_tokens = (flags & 0x10) == 0;
  if ((flags & 0x20) != 0) {
    TruncationParams t;
    t.max_length = in.ConsumeIntegralInRange<std::size_t>(0, 64);
    t.stride = in.ConsumeIntegralInRange<std::size_t>(0, 16);
    static constexpr TruncationStrategy kStrategies[] = {
        TruncationStrategy::kLongestFirst, TruncationStrategy::kOnlyFirst, TruncationStrategy::kOnlySecond};
    t.strategy = in.PickValueInArray(kStrategies);
    t.direction = (flags & 0x40) != 0 ? Direction::kLeft : Direction::kRight;
    s.truncation = t;
  } else if ((flags & 0x80) != 0) {
    s.truncation = file_truncation;
  }
  if ((flags & 0x100) != 0) {
    PaddingParams p;
    if ((flags & 0x200) != 0) p.fixed_length = in.ConsumeIntegralInRange<std::size_t>(0, 80);
    p.direction = (flags & 0x400) != 0 ? Direction::kLeft : Direction::kRight;
    static constexpr std::size_t kMultiples[] = {0, 1, 3, 8};
    p.pad_to_multiple_of = in.PickValueInArray(kMultiples);
    p.pad_id = in.ConsumeIntegralInRange<std::uint32_t>(0, 3);
    p.pad_type_id = in.ConsumeIntegralInRange<std::uint32_t>(0, 2);
    s.padding = p;
  } else if ((flags & 0x800) != 0) {
    s.padding = file_padding;
  }
  return s;
}

// For reading a reproducer: SIEVE_FUZZ_VERBOSE=1 <target> <crash file>.
inline bool verbose() {
  static const bool on = std::getenv("SIEVE_FUZZ_VERBOSE") != nullptr;
  return on;
}

inline std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7F || c == '"' || c == '\\') {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", byte);
      out += hex;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

inline void describe(const Settings& s, std::string_view first, std::string_view second) {
  std::fprintf(stderr, "pair=%d add_special_tokens=%d invalid_utf8=%s offsets=%s skip_special_tokens=%d\n", s.pair,
               s.add_special_tokens, s.invalid_utf8 == InvalidUtf8::kReplace ? "replace" : "error",
               s.offset_unit == OffsetUnit::kChar ? "char" : "byte", s.skip_special_tokens);
  if (s.truncation) {
    std::fprintf(stderr, "truncation: max_length=%zu stride=%zu strategy=%d direction=%s\n", s.truncation->max_length,
                 s.truncation->stride, static_cast<int>(s.truncation->strategy),
                 s.truncation->direction == Direction::kLeft ? "left" : "right");
  }
  if (s.padding) {
    std::fprintf(stderr, "padding: fixed=%zd multiple_of=%zu pad_id=%u pad_type_id=%u direction=%s\n",
                 s.padding->fixed_length ? static_cast<std::ptrdiff_t>(*s.padding->fixed_length) : -1,
                 s.padding->pad_to_multiple_of, s.padding->pad_id, s.padding->pad_type_id,
                 s.padding->direction == Direction::kLeft ? "left" : "right");
  }
  std::fprintf(stderr, "first=%s\n", quoted(first).c_str());
  if (s.pair) std::fprintf(stderr, "second=%s\n", quoted(second).c_str());
}

inline void apply(Tokenizer& tokenizer, const Settings& s) {
  tokenizer.set_truncation(s.truncation);
  tokenizer.set_padding(s.padding);
  tokenizer.set_invalid_utf8(s.invalid_utf8);
  tokenizer.set_offset_unit(s.offset_unit);
}

// Length of `text` in the unit its offsets are counted in. Text that is not
// valid UTF-8 only gets a byte bound: how its replacement characters count
// is the tokenizer's business.
inline std::size_t offset_bound(std::string_view text, OffsetUnit unit) {
  if (unit == OffsetUnit::kByte || tokenizer::unicode::find_invalid_utf8(text) != std::string_view::npos) {
    return text.size();
  }
  std::size_t chars = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++chars;
  }
  return chars;
}

inline void check_encoding(const Tokenizer& tokenizer, const Encoding& e, const Settings& s, std::size_t text_bound,
                           bool is_overflow = false) {
  const std::size_t n = e.ids.size();
  check(e.type_ids.size() == n && e.offsets.size() == n && e.special_tokens_mask.size() == n &&
            e.attention_mask.size() == n,
        "encoding vectors differ in length");
  const std::size_t vocab = tokenizer.vocab_size();
  for (std::size_t i = 0; i < n; ++i) {
    const auto [begin, end] = e.offsets[i];
    check(begin <= end, "offsets begin > end", std::to_string(begin) + ">" + std::to_string(end));
    check(end <= text_bound, "offset beyond the text",
          "end " + std::to_string(end) + " > " + std::to_string(text_bound) + " at token " + std::to_string(i));
    check(e.attention_mask[i] <= 1 && e.special_tokens_mask[i] <= 1, "mask value other than 0 or 1");
    if (e.attention_mask[i] == 0) {
      check(s.padding.has_value(), "attention mask 0 without padding");
      check(e.ids[i] == s.padding->pad_id, "padded position without the pad id");
      continue;
    }
    const std::uint32_t id = e.ids[i];
    if (e.special_tokens_mask[i] != 0 && !s.special_ids_in_vocab) continue;
    check(id < vocab || !tokenizer.id_to_token(id).empty(), "id outside the vocabulary and added tokens",
          std::to_string(id));
  }
  const bool padded_to_fixed = s.padding && s.padding->fixed_length;
  // Only the encoding itself is bounded: Hugging Face's overflowing entries
  // are not (with max_length 0 one entry holds the whole input; for pairs,
  // windows of one text are merged with the other text), and Sieve builds
  // them the same way (tests/tokenizer truncation tests pin that).
  if (s.truncation && !s.padding && !is_overflow) {
    const std::size_t specials = s.add_special_tokens ? tokenizer.num_special_tokens_to_add(s.pair) : 0;
    const std::size_t limit = s.truncation->max_length < specials ? specials : s.truncation->max_length;
    check(n <= limit, "truncated encoding longer than max_length", std::to_string(n) + " > " + std::to_string(limit));
  }
  if (padded_to_fixed && !is_overflow) {
    check(n >= *s.padding->fixed_length, "padded encoding shorter than the fixed length");
  }
  for (const auto& overflow : e.overflowing) check_encoding(tokenizer, overflow, s, text_bound, true);
}

inline void decode_all(const Tokenizer& tokenizer, std::span<const std::uint32_t> ids, bool skip_special_tokens) {
  accepts([&] { (void)tokenizer.decode(ids, skip_special_tokens); });
}

// Encodes one text or a pair with the tokenizer as configured, checks the
// result, and decodes it back.
inline void exercise(Tokenizer& tokenizer, const Settings& s, std::string_view first, std::string_view second) {
  apply(tokenizer, s);
  if (verbose()) describe(s, first, second);
  const std::size_t bound = s.pair ? std::max(offset_bound(first, s.offset_unit), offset_bound(second, s.offset_unit))
                                   : offset_bound(first, s.offset_unit);
  Encoding encoding;
  const bool encoded = accepts([&] {
    encoding = s.pair ? tokenizer.encode_pair(first, second, s.add_special_tokens)
                      : tokenizer.encode(first, s.add_special_tokens);
  });
  if (!encoded) return;
  check_encoding(tokenizer, encoding, s, bound);
  decode_all(tokenizer, encoding.ids, s.skip_special_tokens);
  if (!s.pair) {
    for (std::size_t i = 0; i < encoding.size(); ++i) (void)tokenizer.token_string(encoding, i, first);
  }
  // A batch must give what the single calls give when padding is per input.
  if (!s.padding || s.padding->fixed_length) {
    std::vector<Encoding> batch;
    const bool batched = accepts([&] {
      if (s.pair) {
        const TextPair pairs[] = {{first, second}};
        batch = tokenizer.encode_pair_batch(pairs, s.add_special_tokens);
      } else {
        const std::string_view texts[] = {first};
        batch = tokenizer.encode_batch(texts, s.add_special_tokens);
      }
    });
    check(batched && batch.size() == 1, "batch of one failed where the single call succeeded");
    check(batch[0].ids == encoding.ids && batch[0].offsets == encoding.offsets &&
              batch[0].type_ids == encoding.type_ids && batch[0].attention_mask == encoding.attention_mask,
          "batch of one differs from the single call");
  }
}

}  // namespace sieve::fuzz
