#include "tokenizer/decoders/strip.hpp"

#include "tokenizer/core/unicode.hpp"
#include "tokenizer/decoders/decoder_text.hpp"

namespace sieve::tokenizer {

std::unique_ptr<Decoder> Strip::from_json(const JsonView& node) {
  return std::make_unique<Strip>(decoder_text::single_char(node.at("content")), node.at("start").as_uint(),
                                 node.at("stop").as_uint());
}

void Strip::decode_chain(std::vector<std::string>& tokens) const {
  std::vector<char32_t> chars;
  std::vector<std::size_t> starts;  // byte offset of each character, then the end
  for (std::string& token : tokens) {
    chars.clear();
    starts.clear();
    for (std::size_t pos = 0; pos < token.size();) {
      char32_t cp = 0;
      std::size_t n = unicode::decode(token, pos, cp);
      if (n == 0) n = 1;  // tokens are valid UTF-8; never loop forever if not
      starts.push_back(pos);
      chars.push_back(cp);
      pos += n;
    }
    starts.push_back(token.size());
    const std::size_t count = chars.size();

    std::size_t start_cut = 0;
    while (start_cut < start_ && start_cut < count && chars[start_cut] == content_) ++start_cut;
    std::size_t stop_cut = count;
    for (std::size_t i = 0; i < stop_ && i < count && chars[count - i - 1] == content_; ++i) stop_cut = count - i - 1;
    // Hugging Face panics when both ends overlap (a token made only of the
    // character, cut from both sides); nothing is left of such a token.
    if (stop_cut <= start_cut) {
      token.clear();
      continue;
    }
    token = token.substr(starts[start_cut], starts[stop_cut] - starts[start_cut]);
  }
}

}  // namespace sieve::tokenizer
