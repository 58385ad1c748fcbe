#include "tokenizer/processors/byte_level_processing.hpp"

#include <algorithm>

namespace sieve::tokenizer {

std::unique_ptr<PostProcessor> ByteLevelProcessing::from_json(const JsonView& node) {
  // use_regex belongs to the pre-tokenizer side of the same Hugging Face type.
  static_cast<void>(node.get_bool("use_regex", true));
  return std::make_unique<ByteLevelProcessing>(node.get_bool("trim_offsets", true),
                                               node.get_bool("add_prefix_space", true));
}

void ByteLevelProcessing::process_encodings(std::vector<Encoding>& encodings, bool /*add_special_tokens*/,
                                            const TokenLookup& tokens) const {
  if (!trim_offsets_) return;
  for (std::size_t i = 0; i < encodings.size(); ++i) {
    trim_byte_level_offsets(encodings[i], add_prefix_space_, tokens, std::min<std::size_t>(i, 1));
  }
}

}  // namespace sieve::tokenizer
