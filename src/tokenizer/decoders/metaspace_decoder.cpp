#include "tokenizer/decoders/metaspace_decoder.hpp"

#include "tokenizer/core/unicode.hpp"
#include "tokenizer/decoders/decoder_text.hpp"

namespace sieve::tokenizer {

MetaspaceDecoder::MetaspaceDecoder(char32_t replacement, bool prepends) : prepends_(prepends) {
  unicode::append_utf8(replacement_, replacement);
}

std::unique_ptr<Decoder> MetaspaceDecoder::from_json(const JsonView& node) {
  const char32_t replacement = decoder_text::single_char(node.at("replacement"));
  static_cast<void>(node.get_bool("split", true));
  bool prepends = true;
  if (auto scheme = node.find("prepend_scheme")) {
    const std::string value = scheme->as_string();
    if (value != "always" && value != "first" && value != "never") {
      scheme->fail("expected \"always\", \"first\" or \"never\", got \"" + value + "\"");
    }
    prepends = value != "never";
  } else if (auto legacy = node.get_optional_bool("add_prefix_space")) {
    // Files from before prepend_scheme existed.
    prepends = *legacy;
  }
  return std::make_unique<MetaspaceDecoder>(replacement, prepends);
}

void MetaspaceDecoder::decode_chain(std::vector<std::string>& tokens) const {
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    std::string& token = tokens[i];
    std::size_t hit = token.find(replacement_);
    if (hit == std::string::npos) continue;
    // The replacement is one whole character, so a byte match is a character match.
    const std::string_view space = i == 0 && prepends_ ? std::string_view() : std::string_view(" ");
    std::string out;
    out.reserve(token.size());
    std::size_t pos = 0;
    while (hit != std::string::npos) {
      out.append(token, pos, hit - pos);
      out.append(space);
      pos = hit + replacement_.size();
      hit = token.find(replacement_, pos);
    }
    out.append(token, pos, std::string::npos);
    token = std::move(out);
  }
}

}  // namespace sieve::tokenizer
