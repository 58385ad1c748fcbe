#pragma once

#include <memory>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// <s> A </s> (</s> B </s>), all with type id 0, as RoBERTa-style models
// (MPNet among them) expect.
class RobertaProcessing final : public PostProcessor {
 public:
  RobertaProcessing(std::uint32_t cls, std::uint32_t sep) : cls_(cls), sep_(sep) {}
  static std::unique_ptr<PostProcessor> from_json(const JsonView& node);

  [[nodiscard]] std::size_t added_tokens(bool is_pair) const override { return is_pair ? 4 : 2; }
  [[nodiscard]] Encoding process(Encoding first, std::optional<Encoding> second,
                                 bool add_special_tokens,
                                 const TokenLookup& tokens) const override;

 private:
  std::uint32_t cls_;
  std::uint32_t sep_;
};

}  // namespace sieve::tokenizer
