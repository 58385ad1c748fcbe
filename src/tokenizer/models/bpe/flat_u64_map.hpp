#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sieve::tokenizer {

// An open-addressing hash map from 64-bit keys to 64-bit values, for the
// lookups models make for every character and symbol pair: one probe into a
// flat array instead of a node-based std::unordered_map. Read-only after
// construction, so concurrent lookups need no locking.
class FlatU64Map {
 public:
  FlatU64Map() = default;
  explicit FlatU64Map(std::size_t expected) { reserve(expected); }

  void reserve(std::size_t expected) {
    std::size_t capacity = 16;
    // At most half full keeps probe sequences short.
    while (capacity < expected * 2) capacity <<= 1;
    if (capacity <= slots_.size()) return;
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot{kEmpty, 0});
    mask_ = capacity - 1;
    size_ = 0;
    for (const Slot& slot : old) {
      if (slot.key != kEmpty) insert_or_assign(slot.key, slot.value);
    }
  }

  // The key kEmpty (all bits set) cannot be stored; callers build keys that
  // never reach it.
  void insert_or_assign(std::uint64_t key, std::uint64_t value) {
    if ((size_ + 1) * 2 > slots_.size()) reserve(size_ + 1);
    std::size_t at = hash(key) & mask_;
    while (slots_[at].key != kEmpty && slots_[at].key != key) at = (at + 1) & mask_;
    if (slots_[at].key == kEmpty) ++size_;
    slots_[at] = Slot{key, value};
  }

  [[nodiscard]] const std::uint64_t* find(std::uint64_t key) const noexcept {
    if (slots_.empty()) return nullptr;
    std::size_t at = hash(key) & mask_;
    while (true) {
      const Slot& slot = slots_[at];
      if (slot.key == key) return &slot.value;
      if (slot.key == kEmpty) return nullptr;
      at = (at + 1) & mask_;
    }
  }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }

  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};

 private:
  struct Slot {
    std::uint64_t key;
    std::uint64_t value;
  };

  static std::size_t hash(std::uint64_t key) noexcept {
    // Murmur3's finaliser: pair keys differ mostly in their low bits of each
    // half, which a plain modulo would cluster.
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    key *= 0xc4ceb9fe1a85ec53ULL;
    key ^= key >> 33;
    return static_cast<std::size_t>(key);
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace sieve::tokenizer
