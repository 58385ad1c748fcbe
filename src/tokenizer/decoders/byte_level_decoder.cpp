#include "tokenizer/decoders/byte_level_decoder.hpp"

#include "tokenizer/core/byte_level_alphabet.hpp"
#include "tokenizer/core/unicode.hpp"
#include "tokenizer/decoders/decoder_text.hpp"

namespace sieve::tokenizer {

std::unique_ptr<Decoder> ByteLevelDecoder::from_json(const JsonView& node) {
  // The pre-tokenizer's options share this object; none affects decoding.
  static_cast<void>(node.get_bool("add_prefix_space", true));
  static_cast<void>(node.get_bool("trim_offsets", true));
  static_cast<void>(node.get_bool("use_regex", true));
  return std::make_unique<ByteLevelDecoder>();
}

void ByteLevelDecoder::decode_chain(std::vector<std::string>& tokens) const {
  std::string bytes;
  for (const std::string& token : tokens) {
    const std::size_t start = bytes.size();
    bool in_alphabet = true;
    for (std::size_t pos = 0; pos < token.size();) {
      char32_t cp = 0;
      const std::size_t n = unicode::decode(token, pos, cp);
      const auto byte = n == 0 ? std::nullopt : byte_level::char_to_byte(cp);
      if (!byte) {
        in_alphabet = false;
        break;
      }
      bytes.push_back(static_cast<char>(*byte));
      pos += n;
    }
    if (!in_alphabet) {
      bytes.resize(start);
      bytes.append(token);
    }
  }
  std::string text;
  decoder_text::append_utf8_lossy(text, bytes);
  tokens.clear();
  tokens.push_back(std::move(text));
}

}  // namespace sieve::tokenizer
