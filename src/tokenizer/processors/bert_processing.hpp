#pragma once

#include <memory>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// [CLS] A [SEP] (B [SEP]) with type id 0 for A and 1 for B.
class BertProcessing final : public PostProcessor {
 public:
  BertProcessing(std::uint32_t cls, std::uint32_t sep) : cls_(cls), sep_(sep) {}
  static std::unique_ptr<PostProcessor> from_json(const JsonView& node);

  [[nodiscard]] std::size_t added_tokens(bool is_pair) const override { return is_pair ? 3 : 2; }
  [[nodiscard]] Encoding process(Encoding first, std::optional<Encoding> second,
                                 bool add_special_tokens,
                                 const TokenLookup& tokens) const override;

 private:
  std::uint32_t cls_;
  std::uint32_t sep_;
};

// Reads a ["token", id] pair as BertProcessing and RobertaProcessing store them.
std::uint32_t special_token_id(const JsonView& node);

}  // namespace sieve::tokenizer
