#include "tokenizer/decoders/ctc.hpp"

#include <algorithm>

#include "tokenizer/decoders/decoder_text.hpp"

namespace sieve::tokenizer {

std::unique_ptr<Decoder> Ctc::from_json(const JsonView& node) {
  return std::make_unique<Ctc>(node.get_string("pad_token", "<pad>"), node.get_string("word_delimiter_token", "|"),
                               node.get_bool("cleanup", true));
}

void Ctc::decode_chain(std::vector<std::string>& tokens) const {
  tokens.erase(std::unique(tokens.begin(), tokens.end()), tokens.end());
  for (std::string& token : tokens) {
    decoder_text::replace_all(token, pad_token_, "");
    if (cleanup_) {
      decoder_text::cleanup_artifacts(token);
      decoder_text::replace_all(token, word_delimiter_, " ");
    }
  }
  std::erase_if(tokens, [](const std::string& token) { return token.empty(); });
}

}  // namespace sieve::tokenizer
