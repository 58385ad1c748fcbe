#include "tokenizer/processors/roberta_processing.hpp"

#include "tokenizer/processors/bert_processing.hpp"

namespace sieve::tokenizer {

std::unique_ptr<PostProcessor> RobertaProcessing::from_json(const JsonView& node) {
  // trim_offsets and add_prefix_space only move offsets of byte-level BPE
  // tokens; they are read so that a malformed value is still reported.
  static_cast<void>(node.get_bool("trim_offsets", true));
  static_cast<void>(node.get_bool("add_prefix_space", true));
  return std::make_unique<RobertaProcessing>(special_token_id(node.at("cls")), special_token_id(node.at("sep")));
}

Encoding RobertaProcessing::process(Encoding first, std::optional<Encoding> second, bool add_special_tokens,
                                 const TokenLookup& /*tokens*/) const {
  if (!add_special_tokens) return concatenate(std::move(first), std::move(second));
  Encoding out;
  append_special(out, cls_, 0);
  append_sequence(out, first, 0);
  append_special(out, sep_, 0);
  if (second) {
    append_special(out, sep_, 0);
    append_sequence(out, *second, 0);
    append_special(out, sep_, 0);
  }
  return out;
}

}  // namespace sieve::tokenizer
