#include "tokenizer/processors/bert_processing.hpp"

namespace sieve::tokenizer {

std::uint32_t special_token_id(const JsonView& node) {
  if (node.array_size() != 2) node.fail("expected [token, id]");
  static_cast<void>(node.at(0).as_string());
  return static_cast<std::uint32_t>(node.at(1).as_uint());
}

std::unique_ptr<PostProcessor> BertProcessing::from_json(const JsonView& node) {
  return std::make_unique<BertProcessing>(special_token_id(node.at("cls")), special_token_id(node.at("sep")));
}

Encoding BertProcessing::process(Encoding first, std::optional<Encoding> second, bool add_special_tokens,
                                 const TokenLookup& /*tokens*/) const {
  if (!add_special_tokens) return concatenate(std::move(first), std::move(second));
  Encoding out;
  append_special(out, cls_, 0);
  append_sequence(out, first, 0);
  append_special(out, sep_, 0);
  if (second) {
    append_sequence(out, *second, 1);
    append_special(out, sep_, 1);
  }
  return out;
}

}  // namespace sieve::tokenizer
