#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/core/json_view.hpp"

// Reading and inverting the {"token": id, ...} vocabularies of the BPE,
// WordPiece and WordLevel models.
namespace sieve::tokenizer {

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
using Vocab = std::unordered_map<std::string, std::uint32_t, StringHash, std::equal_to<>>;

// The token -> id object; each id must fit in 32 bits, as in Hugging Face.
Vocab read_vocab_object(const JsonView& node);

// id -> token for a vocabulary, pointing into the vocabulary's own strings
// (which must outlive it). Dense ids, the usual case, take a plain array;
// sparse ids fall back to a hash map rather than a huge array.
class IdToToken {
 public:
  IdToToken() = default;
  explicit IdToToken(const Vocab& vocab);
  [[nodiscard]] std::string_view operator()(std::uint32_t id) const;
  // One past the largest id (0 for an empty vocabulary).
  [[nodiscard]] std::size_t bound() const noexcept { return bound_; }

 private:
  std::size_t bound_ = 0;
  std::vector<std::string_view> dense_;
  std::unordered_map<std::uint32_t, std::string_view> sparse_;
};

}  // namespace sieve::tokenizer
