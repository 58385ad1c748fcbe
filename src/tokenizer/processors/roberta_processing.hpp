#pragma once

#include <memory>

#include "tokenizer/core/json_view.hpp"
#include "tokenizer/processors/encodings_processor.hpp"

namespace sieve::tokenizer {

// <s> A </s> (</s> B </s>), all with type id 0 (even without special
// tokens), as RoBERTa-style models (MPNet among them) expect. With
// trim_offsets, offsets are trimmed as the ByteLevel post-processor does.
class RobertaProcessing final : public EncodingsProcessor {
 public:
  struct Options {
    bool trim_offsets = true;
    bool add_prefix_space = true;
  };

  RobertaProcessing(std::uint32_t cls, std::uint32_t sep, Options options) : cls_(cls), sep_(sep), options_(options) {}
  static std::unique_ptr<PostProcessor> from_json(const JsonView& node);

  [[nodiscard]] std::size_t added_tokens(bool is_pair) const override { return is_pair ? 4 : 2; }
  void process_encodings(std::vector<Encoding>& encodings, bool add_special_tokens,
                         const TokenLookup& tokens) const override;

 private:
  std::uint32_t cls_;
  std::uint32_t sep_;
  Options options_;
};

}  // namespace sieve::tokenizer
