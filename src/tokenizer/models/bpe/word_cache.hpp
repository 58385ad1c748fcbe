#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/core/components.hpp"

namespace sieve::tokenizer {

// Remembers the tokens of pieces already seen, as Hugging Face's models do:
// text repeats the same words, and a lookup is cheaper than tokenizing again.
//
// Tokenizer::encode is const and runs on many threads at once, and the most
// frequent words are looked up by all of them all the time, so lookups take
// no lock and write nothing shared: the cache is an insert-only hash table
// whose slots are published once with a compare-and-swap and never change
// afterwards. Like Hugging Face's cache it stops taking entries once full
// rather than evicting, which is what makes that possible.
class WordCache {
 public:
  // Pieces this long or longer are not kept (Hugging Face's MAX_LENGTH).
  static constexpr std::size_t kMaxPieceBytes = 256;

  explicit WordCache(std::size_t capacity);
  ~WordCache();
  WordCache(const WordCache&) = delete;
  WordCache& operator=(const WordCache&) = delete;

  // Appends the cached tokens of `piece` to `out`; false when not cached.
  bool lookup(std::string_view piece, std::vector<Token>& out) const;
  void store(std::string_view piece, const Token* tokens, std::size_t count) const;

 private:
  struct Entry {
    std::size_t hash;
    std::string piece;
    std::vector<Token> tokens;
  };

  [[nodiscard]] bool usable(std::string_view piece) const noexcept {
    return capacity_ > 0 && piece.size() < kMaxPieceBytes;
  }

  std::size_t capacity_;
  std::size_t mask_ = 0;
  std::unique_ptr<std::atomic<Entry*>[]> slots_;
  mutable std::atomic<std::size_t> size_{0};
};

}  // namespace sieve::tokenizer
