#pragma once

#include <memory>
#include <string>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"
#include "tokenizer/models/vocab.hpp"

namespace sieve::tokenizer {

// Each piece is one token: its own id, or the unknown token's.
class WordLevel final : public Model {
 public:
  WordLevel(Vocab vocab, std::string unk_token);
  static std::unique_ptr<Model> from_json(const JsonView& node);

  void tokenize(std::string_view piece, std::vector<Token>& out) const override;
  [[nodiscard]] std::optional<std::uint32_t> token_to_id(std::string_view token) const override;
  [[nodiscard]] std::string_view id_to_token(std::uint32_t id) const override { return id_to_token_(id); }
  [[nodiscard]] std::size_t vocab_size() const override { return vocab_.size(); }
  [[nodiscard]] std::size_t id_bound() const override { return id_to_token_.bound(); }

 private:
  Vocab vocab_;
  IdToToken id_to_token_;
  std::string unk_token_;
  std::optional<std::uint32_t> unk_id_;
};

}  // namespace sieve::tokenizer
