#include "tokenizer/decoders/wordpiece_decoder.hpp"

#include "tokenizer/decoders/decoder_text.hpp"

namespace sieve::tokenizer {

std::unique_ptr<Decoder> WordPieceDecoder::from_json(const JsonView& node) {
  return std::make_unique<WordPieceDecoder>(node.get_string("prefix", "##"), node.get_bool("cleanup", true));
}

void WordPieceDecoder::decode_chain(std::vector<std::string>& tokens) const {
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    std::string& token = tokens[i];
    if (i != 0) {
      if (token.starts_with(prefix_)) {
        token.erase(0, prefix_.size());
      } else {
        token.insert(token.begin(), ' ');
      }
    }
    // Per token, as Hugging Face does: " do not" only matches within one token.
    if (cleanup_) decoder_text::cleanup_artifacts(token);
  }
}

}  // namespace sieve::tokenizer
