#include "tokenizer/core/byte_trie.hpp"

#include <algorithm>
#include <map>

namespace sieve::tokenizer {

ByteTrie::ByteTrie(const std::vector<std::pair<std::string_view, std::uint32_t>>& entries) {
  // Built with maps first, then laid out breadth-first so that a node's
  // edges are contiguous.
  struct BuildNode {
    std::uint32_t value = kNoValue;
    std::map<std::uint8_t, std::uint32_t> children;
  };
  std::vector<BuildNode> build(1);
  for (const auto& [key, value] : entries) {
    std::uint32_t node = 0;
    for (const char c : key) {
      const auto byte = static_cast<std::uint8_t>(c);
      const auto it = build[node].children.find(byte);
      if (it != build[node].children.end()) {
        node = it->second;
        continue;
      }
      const auto created = static_cast<std::uint32_t>(build.size());
      build[node].children.emplace(byte, created);
      build.emplace_back();
      node = created;
    }
    build[node].value = value;
  }

  nodes_.resize(build.size());
  for (std::size_t i = 0; i < build.size(); ++i) {
    Node& node = nodes_[i];
    const auto& children = build[i].children;
    node.value = build[i].value;
    if (children.size() >= kDenseFrom) {
      node.dense = true;
      node.first_edge = static_cast<std::uint32_t>(dense_.size() / 256);
      dense_.resize(dense_.size() + 256, kNoNode);
      for (const auto& [byte, target] : children)
        dense_[static_cast<std::size_t>(node.first_edge) * 256 + byte] = target;
    } else {
      node.first_edge = static_cast<std::uint32_t>(labels_.size());
      node.edge_count = static_cast<std::uint16_t>(children.size());
      for (const auto& [byte, target] : children) {
        labels_.push_back(byte);
        targets_.push_back(target);
      }
    }
  }
}

}  // namespace sieve::tokenizer
