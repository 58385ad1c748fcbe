#include "tokenizer/normalizers/precompiled.hpp"

#include <utf8proc.h>

#include <array>

#include "sieve/error.hpp"
#include "tokenizer/core/unicode.hpp"
#include "tokenizer/normalizers/transform.hpp"

namespace sieve::tokenizer {
namespace {

// Standard base64 (RFC 4648), padding optional; nullopt on a foreign character.
std::optional<std::string> decode_base64(std::string_view text) {
  constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::array<int, 256> values{};
  values.fill(-1);
  for (std::size_t i = 0; i < kAlphabet.size(); ++i)
    values[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int>(i);

  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  std::string out;
  out.reserve(text.size() / 4 * 3 + 2);
  std::uint32_t bits = 0;
  int bit_count = 0;
  for (const char c : text) {
    const int v = values[static_cast<unsigned char>(c)];
    if (v < 0) return std::nullopt;
    bits = (bits << 6U) | static_cast<std::uint32_t>(v);
    bit_count += 6;
    if (bit_count >= 8) {
      bit_count -= 8;
      out.push_back(static_cast<char>((bits >> static_cast<unsigned>(bit_count)) & 0xFFU));
    }
  }
  return out;
}

// Fields of a Darts double-array unit.
bool has_leaf(std::uint32_t unit) {
  return ((unit >> 8U) & 1U) == 1U;
}
std::uint32_t value(std::uint32_t unit) {
  return unit & ((1U << 31U) - 1U);
}
std::uint32_t label(std::uint32_t unit) {
  return unit & ((1U << 31U) | 0xFFU);
}
std::uint32_t offset(std::uint32_t unit) {
  return (unit >> 10U) << ((unit & (1U << 9U)) >> 6U);
}

std::size_t count_chars(std::string_view s) {
  std::size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0U) != 0x80U ? 1 : 0;
  return n;
}

}  // namespace

Precompiled::Precompiled(std::string_view charsmap) {
  if (charsmap.empty()) return;
  // [u32 trie size in bytes][trie units, little-endian u32][replacements]
  const auto read_u32 = [&](std::size_t at) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < 4; ++i)
      v |= static_cast<std::uint32_t>(static_cast<unsigned char>(charsmap[at + i])) << (8 * i);
    return v;
  };
  if (charsmap.size() < 4) throw Error(ErrorCode::kParse, "cannot parse precompiled_charsmap: too short");
  const std::size_t units = read_u32(0) / 4;
  if (charsmap.size() - 4 < units * 4) {
    throw Error(ErrorCode::kParse, "cannot parse precompiled_charsmap: the trie runs past the end");
  }
  trie_.reserve(units);
  for (std::size_t i = 0; i < units; ++i) trie_.push_back(read_u32(4 + 4 * i));
  replacements_.assign(charsmap.substr(4 + units * 4));
  if (unicode::find_invalid_utf8(replacements_) != std::string::npos) {
    throw Error(ErrorCode::kParse, "cannot parse precompiled_charsmap: its replacements are not valid UTF-8");
  }
  for (std::size_t c = 0; c < ascii_.size(); ++c) {
    const char key = static_cast<char>(c);
    if (const auto replacement = lookup(std::string_view(&key, 1))) {
      ascii_[c] = {true, static_cast<std::uint32_t>(replacement->data() - replacements_.data()),
                   static_cast<std::uint32_t>(replacement->size())};
    }
  }
}

std::unique_ptr<Normalizer> Precompiled::from_json(const JsonView& node) {
  node.expect_object();
  // Hugging Face cannot load an empty or null map; without rules is the
  // only sensible reading of one.
  const auto field = node.find("precompiled_charsmap");
  if (!field) return std::make_unique<Precompiled>(std::string_view{});
  const auto blob = decode_base64(field->as_string());
  if (!blob) field->fail("precompiled_charsmap is not valid base64");
  try {
    return std::make_unique<Precompiled>(*blob);
  } catch (const Error& e) {
    field->fail(e.what());
  }
}

std::optional<std::string_view> Precompiled::lookup(std::string_view key) const {
  // Darts common-prefix search, stopping at the first (shortest) match; out
  // of range reads, where the crate would panic, find nothing.
  if (trie_.empty()) return std::nullopt;
  std::size_t node = offset(trie_[0]);
  for (const char ch : key) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == 0) break;
    node ^= c;
    if (node >= trie_.size()) return std::nullopt;
    const std::uint32_t unit = trie_[node];
    if (label(unit) != c) return std::nullopt;
    node ^= offset(unit);
    if (has_leaf(unit)) {
      if (node >= trie_.size()) return std::nullopt;
      const std::size_t begin = value(trie_[node]);
      if (begin > replacements_.size()) return std::nullopt;
      std::size_t end = replacements_.find('\0', begin);
      if (end == std::string::npos) end = replacements_.size();
      return std::string_view(replacements_).substr(begin, end - begin);
    }
  }
  return std::nullopt;
}

std::optional<std::string_view> Precompiled::lookup_char(std::string_view character) const {
  if (character.size() != 1 || static_cast<unsigned char>(character[0]) >= 0x80) return lookup(character);
  const AsciiEntry entry = ascii_[static_cast<unsigned char>(character[0])];
  if (!entry.mapped) return std::nullopt;
  return std::string_view(replacements_).substr(entry.begin, entry.length);
}

void Precompiled::normalize(NormalizedString& text) const {
  if (trie_.empty()) return;
  const std::string& s = text.get();
  thread_local std::vector<CharChange> changes;
  changes.clear();
  bool modified = false;

  // Tokenizers' changes for a replacement: every new character replaces one
  // old one; surplus new characters are insertions, and a shortfall is
  // removed after the last character pushed so far, even when that belongs
  // to an earlier replacement (or, at the very start, not at all).
  const auto push_replacement = [&](std::string_view replacement, std::size_t old_count) {
    std::size_t new_count = 0;
    std::size_t pos = 0;
    while (pos < replacement.size()) {
      char32_t cp = 0;
      const std::size_t len = unicode::decode(replacement, pos, cp);
      changes.push_back({cp, new_count < old_count ? 0 : 1});
      ++new_count;
      pos += len == 0 ? 1 : len;
    }
    if (new_count < old_count && !changes.empty()) {
      changes.back().change -= static_cast<std::ptrdiff_t>(old_count - new_count);
    }
    modified = true;
  };

  const auto process_grapheme = [&](std::size_t begin, std::size_t end) {
    const std::string_view grapheme(s.data() + begin, end - begin);
    char32_t cp = 0;
    std::size_t len = unicode::decode(grapheme, 0, cp);
    if (len == grapheme.size()) {  // one character: both lookups are the same
      if (const auto replacement = lookup_char(grapheme)) {
        push_replacement(*replacement, 1);
      } else {
        changes.push_back({cp, 0});
      }
      return;
    }
    if (grapheme.size() < 6) {
      if (const auto replacement = lookup(grapheme)) {
        push_replacement(*replacement, count_chars(grapheme));
        return;
      }
    }
    std::size_t pos = 0;
    while (pos < grapheme.size()) {
      len = unicode::decode(grapheme, pos, cp);
      if (len == 0) len = 1;
      if (const auto replacement = lookup_char(grapheme.substr(pos, len))) {
        push_replacement(*replacement, 1);
      } else {
        changes.push_back({cp, 0});
      }
      pos += len;
    }
  };

  // Extended grapheme clusters. Between two ASCII characters there is always
  // a break but for CR LF, and an ASCII character ends any emoji or flag
  // sequence, so utf8proc's state can start afresh after one.
  std::size_t cluster_begin = 0;
  std::size_t pos = 0;
  utf8proc_int32_t state = 0;
  char32_t previous = 0;
  while (pos < s.size()) {
    char32_t cp = 0;
    std::size_t len = 1;
    if (static_cast<unsigned char>(s[pos]) < 0x80) {
      cp = static_cast<unsigned char>(s[pos]);
    } else {
      len = unicode::decode(s, pos, cp);
      if (len == 0) len = 1;
    }
    bool boundary = false;
    if (pos > 0) {
      if (previous < 0x80 && cp < 0x80) {
        boundary = !(previous == '\r' && cp == '\n');
        state = 0;
      } else {
        if (previous < 0x80) state = 0;
        boundary = utf8proc_grapheme_break_stateful(static_cast<utf8proc_int32_t>(previous),
                                                    static_cast<utf8proc_int32_t>(cp), &state);
      }
    }
    if (boundary) {
      process_grapheme(cluster_begin, pos);
      cluster_begin = pos;
    }
    previous = cp;
    pos += len;
  }
  if (pos > cluster_begin) process_grapheme(cluster_begin, pos);
  if (!modified) return;

  Transformer transformer(text);
  transformer.begin_range(s.size());
  for (const CharChange& c : changes) transformer.push(c.cp, c.change);
  transformer.end_range();
  text = std::move(transformer).finish();
}

}  // namespace sieve::tokenizer
