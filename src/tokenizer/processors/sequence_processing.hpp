#pragma once

#include <memory>
#include <vector>

#include "tokenizer/core/json_view.hpp"
#include "tokenizer/processors/encodings_processor.hpp"

namespace sieve::tokenizer {

// Runs its processors in turn on the list of encodings (see
// EncodingsProcessor); the tokens it adds are the sum of theirs.
class SequenceProcessing final : public EncodingsProcessor {
 public:
  explicit SequenceProcessing(std::vector<std::unique_ptr<EncodingsProcessor>> processors)
      : processors_(std::move(processors)) {}
  static std::unique_ptr<PostProcessor> from_json(const JsonView& node);

  [[nodiscard]] std::size_t added_tokens(bool is_pair) const override;
  void process_encodings(std::vector<Encoding>& encodings, bool add_special_tokens,
                         const TokenLookup& tokens) const override;

 private:
  std::vector<std::unique_ptr<EncodingsProcessor>> processors_;
};

}  // namespace sieve::tokenizer
