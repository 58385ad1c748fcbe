#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace sieve::tokenizer {

// A read-only trie over byte strings with a value per key, for prefix
// searches over a vocabulary in one pass over the text (the linear-time
// longest match of WordPiece, the common-prefix search of a lattice)
// instead of one hash lookup per candidate length. Nodes with many children
// (the root, frequent first letters) index their children directly by byte;
// the others keep a short sorted list.
class ByteTrie {
 public:
  static constexpr std::uint32_t kNoValue = UINT32_MAX;

  ByteTrie() = default;
  // Keys may repeat: the last value wins.
  explicit ByteTrie(const std::vector<std::pair<std::string_view, std::uint32_t>>& entries);

  // The longest key that is a prefix of `text`: (length, value).
  [[nodiscard]] std::optional<std::pair<std::size_t, std::uint32_t>> longest_prefix(std::string_view text) const {
    std::optional<std::pair<std::size_t, std::uint32_t>> best;
    std::uint32_t node = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
      node = child(node, static_cast<std::uint8_t>(text[i]));
      if (node == kNoNode) break;
      if (nodes_[node].value != kNoValue) best.emplace(i + 1, nodes_[node].value);
    }
    return best;
  }

  // Calls visit(length, value) for every key that is a prefix of `text`, shortest first.
  template <typename Visit>
  void for_each_prefix(std::string_view text, Visit&& visit) const {
    std::uint32_t node = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
      node = child(node, static_cast<std::uint8_t>(text[i]));
      if (node == kNoNode) return;
      if (nodes_[node].value != kNoValue) visit(i + 1, nodes_[node].value);
    }
  }

  [[nodiscard]] bool empty() const noexcept { return nodes_.size() <= 1; }

 private:
  static constexpr std::uint32_t kNoNode = UINT32_MAX;
  static constexpr std::uint32_t kDenseFrom = 12;  // children count from which a node gets a table

  struct Node {
    std::uint32_t value = kNoValue;
    std::uint32_t first_edge = 0;  // into labels_/targets_, or into dense_ (times 256) when dense
    std::uint16_t edge_count = 0;
    bool dense = false;
  };

  [[nodiscard]] std::uint32_t child(std::uint32_t node, std::uint8_t byte) const noexcept {
    const Node& n = nodes_[node];
    if (n.dense) return dense_[static_cast<std::size_t>(n.first_edge) * 256 + byte];
    const std::uint8_t* labels = labels_.data() + n.first_edge;
    for (std::uint16_t k = 0; k < n.edge_count; ++k) {
      if (labels[k] == byte) return targets_[n.first_edge + k];
      if (labels[k] > byte) break;
    }
    return kNoNode;
  }

  std::vector<Node> nodes_;
  std::vector<std::uint8_t> labels_;
  std::vector<std::uint32_t> targets_;
  std::vector<std::uint32_t> dense_;
};

}  // namespace sieve::tokenizer
