#include "tokenizer/models/bpe/word_cache.hpp"

namespace sieve::tokenizer {

WordCache::WordCache(std::size_t capacity) : capacity_(capacity) {
  if (capacity_ == 0) return;
  // At most half full, so probe sequences stay short.
  std::size_t slots = 16;
  while (slots < capacity_ * 2) slots <<= 1;
  mask_ = slots - 1;
  slots_ = std::make_unique<std::atomic<Entry*>[]>(slots);
  for (std::size_t i = 0; i < slots; ++i) slots_[i].store(nullptr, std::memory_order_relaxed);
}

WordCache::~WordCache() {
  if (!slots_) return;
  for (std::size_t i = 0; i <= mask_; ++i) delete slots_[i].load(std::memory_order_relaxed);
}

bool WordCache::lookup(std::string_view piece, std::vector<Token>& out) const {
  if (!usable(piece)) return false;
  const std::size_t hash = std::hash<std::string_view>{}(piece);
  for (std::size_t at = hash & mask_;; at = (at + 1) & mask_) {
    const Entry* entry = slots_[at].load(std::memory_order_acquire);
    if (entry == nullptr) return false;
    if (entry->hash == hash && entry->piece == piece) {
      out.insert(out.end(), entry->tokens.begin(), entry->tokens.end());
      return true;
    }
  }
}

void WordCache::store(std::string_view piece, const Token* tokens, std::size_t count) const {
  if (!usable(piece)) return;
  // Reserve room first; a full cache takes nothing more.
  if (size_.load(std::memory_order_relaxed) >= capacity_) return;
  if (size_.fetch_add(1, std::memory_order_relaxed) >= capacity_) return;
  const std::size_t hash = std::hash<std::string_view>{}(piece);
  auto entry = std::make_unique<Entry>(Entry{hash, std::string(piece), std::vector<Token>(tokens, tokens + count)});
  for (std::size_t at = hash & mask_;; at = (at + 1) & mask_) {
    Entry* expected = nullptr;
    if (slots_[at].compare_exchange_strong(expected, entry.get(), std::memory_order_release,
                                           std::memory_order_acquire)) {
      entry.release();
      return;
    }
    // Another thread may have cached the same piece meanwhile.
    if (expected->hash == hash && expected->piece == piece) return;
  }
}

}  // namespace sieve::tokenizer
