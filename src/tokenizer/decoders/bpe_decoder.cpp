#include "tokenizer/decoders/bpe_decoder.hpp"

#include "tokenizer/decoders/decoder_text.hpp"

namespace sieve::tokenizer {

std::unique_ptr<Decoder> BpeDecoder::from_json(const JsonView& node) {
  return std::make_unique<BpeDecoder>(node.get_string("suffix", "</w>"));
}

void BpeDecoder::decode_chain(std::vector<std::string>& tokens) const {
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    decoder_text::replace_all(tokens[i], suffix_, i + 1 == tokens.size() ? "" : " ");
  }
}

}  // namespace sieve::tokenizer
