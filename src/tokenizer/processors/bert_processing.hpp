#pragma once

#include <memory>

#include "tokenizer/core/json_view.hpp"
#include "tokenizer/processors/encodings_processor.hpp"

namespace sieve::tokenizer {

// [CLS] A [SEP] (B [SEP]) with type id 0 for A and 1 for B.
class BertProcessing final : public EncodingsProcessor {
 public:
  BertProcessing(std::uint32_t cls, std::uint32_t sep) : cls_(cls), sep_(sep) {}
  static std::unique_ptr<PostProcessor> from_json(const JsonView& node);

  [[nodiscard]] std::size_t added_tokens(bool is_pair) const override { return is_pair ? 3 : 2; }
  void process_encodings(std::vector<Encoding>& encodings, bool add_special_tokens,
                         const TokenLookup& tokens) const override;

 private:
  std::uint32_t cls_;
  std::uint32_t sep_;
};

// Reads a ["token", id] pair as BertProcessing and RobertaProcessing store them.
std::uint32_t special_token_id(const JsonView& node);

// Hugging Face picks between the two by their fields, not their "type" (its
// post-processor enum is untagged and tries RobertaProcessing first): an
// object with boolean trim_offsets and add_prefix_space is a
// RobertaProcessing, one without is a BertProcessing, whatever it is called.
bool has_roberta_fields(const JsonView& node);

}  // namespace sieve::tokenizer
