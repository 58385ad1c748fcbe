#include <gtest/gtest.h>

#include <map>
#include <random>

#include "tokenizer/core/byte_trie.hpp"

namespace sieve::tokenizer {
namespace {

TEST(ByteTrie, LongestAndAllPrefixes) {
  const ByteTrie trie({{"a", 1}, {"ab", 2}, {"abcd", 3}, {"b", 4}, {"日本", 5}});
  EXPECT_EQ(trie.longest_prefix("abcde"), (std::pair<std::size_t, std::uint32_t>{4, 3}));
  EXPECT_EQ(trie.longest_prefix("abc"), (std::pair<std::size_t, std::uint32_t>{2, 2}));
  EXPECT_EQ(trie.longest_prefix("日本語"), (std::pair<std::size_t, std::uint32_t>{6, 5}));
  EXPECT_FALSE(trie.longest_prefix("c").has_value());
  EXPECT_FALSE(trie.longest_prefix("").has_value());
  std::vector<std::pair<std::size_t, std::uint32_t>> seen;
  trie.for_each_prefix("abcd", [&](std::size_t length, std::uint32_t value) { seen.emplace_back(length, value); });
  EXPECT_EQ(seen, (std::vector<std::pair<std::size_t, std::uint32_t>>{{1, 1}, {2, 2}, {4, 3}}));
}

// Dense and sparse nodes against a plain map, on random keys over a small
// alphabet (many children per node) and a large one (few).
TEST(ByteTrie, AgreesWithAMapOnRandomKeys) {
  std::mt19937 rng(7);
  for (const int alphabet : {3, 40, 256}) {
    std::map<std::string, std::uint32_t> keys;
    std::vector<std::pair<std::string_view, std::uint32_t>> entries;
    for (std::uint32_t i = 0; i < 3000; ++i) {
      std::string key(1 + rng() % 6, 'x');
      for (auto& c : key) c = static_cast<char>(rng() % alphabet);
      keys[key] = i;
    }
    for (const auto& [key, value] : keys) entries.emplace_back(key, value);
    const ByteTrie trie(entries);
    for (int probe = 0; probe < 2000; ++probe) {
      std::string text(rng() % 9, 'x');
      for (auto& c : text) c = static_cast<char>(rng() % alphabet);
      std::optional<std::pair<std::size_t, std::uint32_t>> expected;
      for (std::size_t n = 1; n <= text.size(); ++n) {
        if (const auto it = keys.find(text.substr(0, n)); it != keys.end()) expected.emplace(n, it->second);
      }
      EXPECT_EQ(trie.longest_prefix(text), expected);
    }
  }
}

}  // namespace
}  // namespace sieve::tokenizer
