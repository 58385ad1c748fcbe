#include "tokenizer/processors/roberta_processing.hpp"

#include <algorithm>

#include "tokenizer/processors/bert_processing.hpp"

namespace sieve::tokenizer {

std::unique_ptr<PostProcessor> RobertaProcessing::from_json(const JsonView& node) {
  // Without both options Hugging Face reads the object as a BertProcessing
  // (see has_roberta_fields); a file that loads there must behave the same.
  if (!has_roberta_fields(node)) {
    return std::make_unique<BertProcessing>(special_token_id(node.at("cls")), special_token_id(node.at("sep")));
  }
  Options options;
  options.trim_offsets = node.at("trim_offsets").as_bool();
  options.add_prefix_space = node.at("add_prefix_space").as_bool();
  return std::make_unique<RobertaProcessing>(special_token_id(node.at("cls")), special_token_id(node.at("sep")),
                                             options);
}

void RobertaProcessing::process_encodings(std::vector<Encoding>& encodings, bool add_special_tokens,
                                          const TokenLookup& tokens) const {
  for (std::size_t i = 0; i < encodings.size(); ++i) {
    Encoding& encoding = encodings[i];
    if (options_.trim_offsets) {
      trim_byte_level_offsets(encoding, options_.add_prefix_space, tokens, std::min<std::size_t>(i, 1));
    }
    std::fill(encoding.type_ids.begin(), encoding.type_ids.end(), 0);
  }
  if (!add_special_tokens) return;
  for (std::size_t i = 0; i < encodings.size(); ++i) {
    const Encoding& sequence = encodings[i];
    Encoding out;
    const std::size_t total = sequence.size() + 2;
    out.ids.reserve(total);
    out.type_ids.reserve(total);
    out.offsets.reserve(total);
    out.special_tokens_mask.reserve(total);
    out.attention_mask.reserve(total);
    append_special(out, i == 0 ? cls_ : sep_, 0);
    append_encoding(out, sequence);
    // Hugging Face marks the wrapped tokens as not special, whatever they were.
    std::fill(out.special_tokens_mask.begin() + 1, out.special_tokens_mask.end(), 0);
    append_special(out, sep_, 0);
    encodings[i] = std::move(out);
  }
}

}  // namespace sieve::tokenizer
