#include "tokenizer/models/vocab.hpp"

#include <algorithm>

namespace sieve::tokenizer {

Vocab read_vocab_object(const JsonView& node) {
  node.expect_object();
  Vocab vocab;
  vocab.reserve(node.raw().size());
  for (const auto& [token, id] : node.raw().items()) {
    const bool non_negative = id.is_number_unsigned() || (id.is_number_integer() && id.get<std::int64_t>() >= 0);
    if (!non_negative) node.at(token).fail("expected a non-negative integer id");
    const auto value = id.get<std::uint64_t>();
    if (value > UINT32_MAX) node.at(token).fail("id out of range");
    vocab.insert_or_assign(token, static_cast<std::uint32_t>(value));
  }
  return vocab;
}

IdToToken::IdToToken(const Vocab& vocab) {
  std::uint32_t max_id = 0;
  for (const auto& entry : vocab) max_id = std::max(max_id, entry.second);
  bound_ = vocab.empty() ? 0 : static_cast<std::size_t>(max_id) + 1;
  if (static_cast<std::size_t>(max_id) < 2 * vocab.size() + 1024) {
    dense_.resize(vocab.empty() ? 0 : static_cast<std::size_t>(max_id) + 1);
    for (const auto& [token, id] : vocab) dense_[id] = token;
  } else {
    for (const auto& [token, id] : vocab) sparse_.emplace(id, token);
  }
}

std::string_view IdToToken::operator()(std::uint32_t id) const {
  if (id < dense_.size()) return dense_[id];
  if (sparse_.empty()) return {};
  const auto it = sparse_.find(id);
  return it == sparse_.end() ? std::string_view{} : it->second;
}

}  // namespace sieve::tokenizer
