#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sieve/tokenizer.hpp"
#include "tokenizer/core/normalized_string.hpp"

// The four stages of a Hugging Face tokenizer, as interfaces. Each concrete
// component lives in its own folder and is built from its tokenizer.json
// object by the factory registered under its "type" (component_registry.hpp).
namespace sieve::tokenizer {

// A token produced by a model, with byte offsets into the piece it was given.
struct Token {
  std::uint32_t id;
  std::uint32_t begin;
  std::uint32_t end;
};

// One piece of the input after pre-tokenization. Pieces that are added
// tokens arrive already tokenized.
struct Split {
  NormalizedString text;
  std::vector<Token> tokens;
  bool tokenized = false;
};

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  virtual void normalize(NormalizedString& text) const = 0;
};

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  // Replaces each split that is not yet tokenized with its pieces.
  virtual void pre_tokenize(std::vector<Split>& splits) const = 0;
};

class Model {
 public:
  virtual ~Model() = default;
  virtual void tokenize(std::string_view piece, std::vector<Token>& out) const = 0;
  [[nodiscard]] virtual std::optional<std::uint32_t> token_to_id(std::string_view token) const = 0;
  [[nodiscard]] virtual std::string_view id_to_token(std::uint32_t id) const = 0;
  [[nodiscard]] virtual std::size_t vocab_size() const = 0;
  // One past the largest id of the vocabulary: its size where ids are dense.
  [[nodiscard]] virtual std::size_t id_bound() const { return vocab_size(); }
};

// The token strings of the whole vocabulary (model and added tokens), for
// stages that work on token text: offset trimming and decoding.
class TokenLookup {
 public:
  virtual ~TokenLookup() = default;
  // Empty for an id outside the vocabulary.
  [[nodiscard]] virtual std::string_view id_to_token(std::uint32_t id) const = 0;
  // The token's string as Hugging Face's encoding holds it: the vocabulary
  // entry, except for an added token matched in the input, which is the
  // matched text with the whitespace lstrip/rstrip took. `sequence` is 0 or
  // 1 (the input of a pair the token comes from).
  [[nodiscard]] virtual std::string_view token_text(std::uint32_t id, Offsets /*offsets*/,
                                                    std::size_t /*sequence*/) const {
    return id_to_token(id);
  }
};

class PostProcessor {
 public:
  virtual ~PostProcessor() = default;
  [[nodiscard]] virtual std::size_t added_tokens(bool is_pair) const = 0;
  // Joins the encodings of one or two sequences, adding special tokens when asked.
  [[nodiscard]] virtual Encoding process(Encoding first, std::optional<Encoding> second, bool add_special_tokens,
                                         const TokenLookup& tokens) const = 0;
};

// Turns token strings back into text, as Hugging Face's Decoder::decode_chain:
// each decoder rewrites the list, and the caller concatenates what is left.
class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual void decode_chain(std::vector<std::string>& tokens) const = 0;
};

// Concatenation used by processors when no special tokens are added.
Encoding concatenate(Encoding first, std::optional<Encoding> second);
// Marks a run of special tokens in an encoding being built.
void append_special(Encoding& out, std::uint32_t id, std::uint32_t type_id);
// Appends a sequence's tokens with the given type id.
void append_sequence(Encoding& out, const Encoding& sequence, std::uint32_t type_id);

}  // namespace sieve::tokenizer
