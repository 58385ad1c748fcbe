#include "tokenizer/processors/bert_processing.hpp"

#include <algorithm>

#include "tokenizer/processors/roberta_processing.hpp"

namespace sieve::tokenizer {

std::uint32_t special_token_id(const JsonView& node) {
  if (node.array_size() != 2) node.fail("expected [token, id]");
  static_cast<void>(node.at(0).as_string());
  return static_cast<std::uint32_t>(node.at(1).as_uint());
}

bool has_roberta_fields(const JsonView& node) {
  const auto is_bool = [&](std::string_view key) {
    const auto field = node.find(key);
    return field && field->raw().is_boolean();
  };
  return is_bool("trim_offsets") && is_bool("add_prefix_space");
}

std::unique_ptr<PostProcessor> BertProcessing::from_json(const JsonView& node) {
  if (has_roberta_fields(node)) return RobertaProcessing::from_json(node);
  return std::make_unique<BertProcessing>(special_token_id(node.at("cls")), special_token_id(node.at("sep")));
}

void BertProcessing::process_encodings(std::vector<Encoding>& encodings, bool add_special_tokens,
                                       const TokenLookup& /*tokens*/) const {
  if (!add_special_tokens) return;
  for (std::size_t i = 0; i < encodings.size(); ++i) {
    const Encoding& sequence = encodings[i];
    Encoding out;
    const std::size_t total = sequence.size() + (i == 0 ? 2 : 1);
    out.ids.reserve(total);
    out.type_ids.reserve(total);
    out.offsets.reserve(total);
    out.special_tokens_mask.reserve(total);
    out.attention_mask.reserve(total);
    if (i == 0) append_special(out, cls_, 0);
    append_encoding(out, sequence);
    // Hugging Face marks the wrapped tokens as not special, whatever they were.
    std::fill(out.special_tokens_mask.begin() + (i == 0 ? 1 : 0), out.special_tokens_mask.end(), 0);
    append_special(out, sep_, i == 0 ? 0 : 1);
    encodings[i] = std::move(out);
  }
}

}  // namespace sieve::tokenizer
