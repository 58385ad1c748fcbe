#include "tokenizer/processors/encodings_processor.hpp"

#include <algorithm>

#include "tokenizer/core/unicode.hpp"

namespace sieve::tokenizer {

Encoding EncodingsProcessor::process(Encoding first, std::optional<Encoding> second, bool add_special_tokens,
                                     const TokenLookup& tokens) const {
  std::vector<Encoding> encodings;
  encodings.reserve(second ? 2 : 1);
  first.type_ids.assign(first.size(), 0);
  encodings.push_back(std::move(first));
  if (second) {
    second->type_ids.assign(second->size(), 1);
    encodings.push_back(std::move(*second));
  }
  process_encodings(encodings, add_special_tokens, tokens);
  return merge_encodings(encodings);
}

void append_encoding(Encoding& out, const Encoding& part) {
  out.ids.insert(out.ids.end(), part.ids.begin(), part.ids.end());
  out.type_ids.insert(out.type_ids.end(), part.type_ids.begin(), part.type_ids.end());
  out.offsets.insert(out.offsets.end(), part.offsets.begin(), part.offsets.end());
  out.special_tokens_mask.insert(out.special_tokens_mask.end(), part.special_tokens_mask.begin(),
                                 part.special_tokens_mask.end());
  out.attention_mask.insert(out.attention_mask.end(), part.attention_mask.begin(), part.attention_mask.end());
}

Encoding merge_encodings(std::vector<Encoding>& encodings) {
  if (encodings.empty()) return {};
  if (encodings.size() == 1) return std::move(encodings.front());
  std::size_t total = 0;
  for (const auto& e : encodings) total += e.size();
  Encoding out;
  out.ids.reserve(total);
  out.type_ids.reserve(total);
  out.offsets.reserve(total);
  out.special_tokens_mask.reserve(total);
  out.attention_mask.reserve(total);
  for (const auto& e : encodings) append_encoding(out, e);
  return out;
}

namespace {

constexpr char32_t kByteLevelSpace = 0x120;  // 'Ġ', the byte-level space

bool is_space(char32_t cp) {
  return cp == kByteLevelSpace || unicode::is_whitespace(cp);
}

bool may_be_space(unsigned char byte) {
  // 'Ġ' starts with 0xC4; any non-ASCII byte may start a whitespace character.
  return byte >= 0x80 || byte == ' ' || (byte >= 0x09 && byte <= 0x0D);
}

}  // namespace

void trim_byte_level_offsets(Encoding& encoding, bool add_prefix_space, const TokenLookup& tokens,
                             std::size_t sequence) {
  for (std::size_t i = 0; i < encoding.size(); ++i) {
    const std::string_view token = tokens.token_text(encoding.ids[i], encoding.offsets[i], sequence);
    if (token.empty() || (!may_be_space(static_cast<unsigned char>(token.front())) &&
                          !may_be_space(static_cast<unsigned char>(token.back())))) {
      continue;
    }
    std::uint32_t leading = 0;
    std::uint32_t trailing = 0;
    bool in_leading_run = true;
    for (std::size_t pos = 0; pos < token.size();) {
      char32_t cp = 0;
      std::size_t n = unicode::decode(token, pos, cp);
      if (n == 0) n = 1;  // vocabulary strings are UTF-8; never loop forever if not
      if (is_space(cp)) {
        ++trailing;
        if (in_leading_run) ++leading;
      } else {
        trailing = 0;
        in_leading_run = false;
      }
      pos += n;
    }
    auto& [begin, end] = encoding.offsets[i];
    if (leading > 0) {
      // A pre-tokenized input may restart at offset 0 in a later token.
      const bool is_first = i == 0 || begin == 0;
      // The single space the pre-tokenizer prepended is not in the original
      // text; more than one means the text had them.
      if (is_first && add_prefix_space && leading == 1) leading = 0;
      begin = std::min(begin + leading, end);
    }
    if (trailing > 0 && end >= trailing) end = std::max(end - trailing, begin);
  }
}

}  // namespace sieve::tokenizer
