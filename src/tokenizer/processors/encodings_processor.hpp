#pragma once

#include <optional>
#include <vector>

#include "tokenizer/core/components.hpp"

namespace sieve::tokenizer {

// Hugging Face's post-processing model: `process` gives sequence i type id i,
// hands the list of sequence encodings to `process_encodings`, then
// concatenates whatever list comes back. A Sequence post-processor chains the
// `process_encodings` of its children, so each one sees the list the previous
// one produced (a TemplateProcessing returns one encoding per template piece).
class EncodingsProcessor : public PostProcessor {
 public:
  [[nodiscard]] Encoding process(Encoding first, std::optional<Encoding> second, bool add_special_tokens,
                                 const TokenLookup& tokens) const override;
  virtual void process_encodings(std::vector<Encoding>& encodings, bool add_special_tokens,
                                 const TokenLookup& tokens) const = 0;
};

// Concatenates the encodings of a list into one.
Encoding merge_encodings(std::vector<Encoding>& encodings);
// Appends every field of `part`.
void append_encoding(Encoding& out, const Encoding& part);

// Hugging Face's byte-level process_offsets: shrinks each token's offsets so
// they exclude the leading and trailing spaces ('Ġ' or whitespace) of its
// token string, except the one space a prefix-space pre-tokenizer added
// before the first token. Offsets are bytes and the spaces are counted in
// characters, as in Hugging Face.
// `sequence` is the input (0 or 1) the encoding comes from.
void trim_byte_level_offsets(Encoding& encoding, bool add_prefix_space, const TokenLookup& tokens,
                             std::size_t sequence);

}  // namespace sieve::tokenizer
