#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tokenizer/core/json_view.hpp"
#include "tokenizer/processors/encodings_processor.hpp"

namespace sieve::tokenizer {

// Hugging Face's TemplateProcessing: "single" and "pair" templates made of
// special tokens and the sequences $A / $B, each with a type id. Without
// special tokens the sequences still follow the template's order and type ids.
class TemplateProcessing final : public EncodingsProcessor {
 public:
  struct Piece {
    bool is_sequence = false;
    bool second = false;             // sequence B (only when is_sequence)
    std::vector<std::uint32_t> ids;  // the special token's ids
    std::uint32_t type_id = 0;
  };

  TemplateProcessing(std::vector<Piece> single, std::vector<Piece> pair);
  static std::unique_ptr<PostProcessor> from_json(const JsonView& node);

  [[nodiscard]] std::size_t added_tokens(bool is_pair) const override;
  // Builds the result directly rather than as a list of pieces.
  [[nodiscard]] Encoding process(Encoding first, std::optional<Encoding> second, bool add_special_tokens,
                                 const TokenLookup& tokens) const override;
  // One encoding per template piece, as Hugging Face hands them on in a Sequence.
  void process_encodings(std::vector<Encoding>& encodings, bool add_special_tokens,
                         const TokenLookup& tokens) const override;

 private:
  std::vector<Piece> single_;
  std::vector<Piece> pair_;
};

}  // namespace sieve::tokenizer
