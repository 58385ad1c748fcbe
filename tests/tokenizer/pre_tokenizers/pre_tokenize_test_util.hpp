#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/core/component_registry.hpp"
#include "tokenizer/core/unicode.hpp"

// Helpers for the pre-tokenizer tests: expected values are what Hugging Face
// `tokenizers` gives for pre_tokenize_str, whose offsets count characters;
// ours count bytes, so the expectations are converted with the input text.
namespace sieve::tokenizer::testing {

struct Piece {
  std::string text;
  std::size_t begin;
  std::size_t end;
  bool operator==(const Piece&) const = default;
};

inline std::ostream& operator<<(std::ostream& os, const Piece& piece) {
  return os << "(\"" << piece.text << "\", " << piece.begin << ", " << piece.end << ")";
}

inline std::unique_ptr<PreTokenizer> make_pre_tokenizer(std::string_view json) {
  const nlohmann::json parsed = nlohmann::json::parse(json);
  return ComponentRegistry::builtin().pre_tokenizers.create(JsonView(parsed, "test"), "pre-tokenizer");
}

inline std::vector<Piece> pieces_of(const std::vector<Split>& splits) {
  std::vector<Piece> out;
  for (const auto& split : splits) {
    const auto [begin, end] = split.text.original_offsets(0, split.text.size());
    out.push_back(Piece{split.text.get(), begin, end});
  }
  return out;
}

inline std::vector<Piece> pre_tokenize(const PreTokenizer& pre_tokenizer, std::string_view text) {
  std::vector<Split> splits;
  splits.push_back(Split{NormalizedString(text), {}, false});
  pre_tokenizer.pre_tokenize(splits);
  return pieces_of(splits);
}

// Byte offset of character `index` of `text`.
inline std::size_t byte_offset(std::string_view text, std::size_t index) {
  std::size_t pos = 0;
  for (std::size_t i = 0; i < index && pos < text.size(); ++i) {
    pos += unicode::sequence_length(static_cast<unsigned char>(text[pos]));
  }
  return pos;
}

// HF's pieces, (piece, (char_begin, char_end)), with byte offsets into `text`.
inline std::vector<Piece> hf_pieces(std::string_view text, const std::vector<Piece>& char_pieces) {
  std::vector<Piece> out;
  for (const auto& piece : char_pieces) {
    out.push_back(Piece{piece.text, byte_offset(text, piece.begin), byte_offset(text, piece.end)});
  }
  return out;
}

}  // namespace sieve::tokenizer::testing
