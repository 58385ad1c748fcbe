#pragma once

#include <memory>

#include "tokenizer/core/json_view.hpp"
#include "tokenizer/processors/encodings_processor.hpp"

namespace sieve::tokenizer {

// The ByteLevel post-processor: adds no tokens; with trim_offsets, offsets
// leave out the spaces byte-level tokens carry.
class ByteLevelProcessing final : public EncodingsProcessor {
 public:
  ByteLevelProcessing(bool trim_offsets, bool add_prefix_space)
      : trim_offsets_(trim_offsets), add_prefix_space_(add_prefix_space) {}
  static std::unique_ptr<PostProcessor> from_json(const JsonView& node);

  [[nodiscard]] std::size_t added_tokens(bool /*is_pair*/) const override { return 0; }
  void process_encodings(std::vector<Encoding>& encodings, bool add_special_tokens,
                         const TokenLookup& tokens) const override;

 private:
  bool trim_offsets_;
  bool add_prefix_space_;
};

}  // namespace sieve::tokenizer
