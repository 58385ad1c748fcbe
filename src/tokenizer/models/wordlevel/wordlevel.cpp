#include "tokenizer/models/wordlevel/wordlevel.hpp"

namespace sieve::tokenizer {

WordLevel::WordLevel(Vocab vocab, std::string unk_token) : vocab_(std::move(vocab)), unk_token_(std::move(unk_token)) {
  id_to_token_ = IdToToken(vocab_);
  unk_id_ = token_to_id(unk_token_);
}

std::unique_ptr<Model> WordLevel::from_json(const JsonView& node) {
  // Hugging Face requires "unk_token" here, with no default.
  std::string unk_token = node.at("unk_token").as_string();
  return std::make_unique<WordLevel>(read_vocab_object(node.at("vocab")), std::move(unk_token));
}

void WordLevel::tokenize(std::string_view piece, std::vector<Token>& out) const {
  std::optional<std::uint32_t> id = token_to_id(piece);
  if (!id) id = unk_id_;
  if (!id) {
    throw Error(ErrorCode::kParse, "WordLevel: \"" + std::string(piece) +
                                       "\" is not in the vocabulary and the unknown token \"" + unk_token_ +
                                       "\" is missing from it");
  }
  out.push_back(Token{*id, 0, static_cast<std::uint32_t>(piece.size())});
}

std::optional<std::uint32_t> WordLevel::token_to_id(std::string_view token) const {
  const auto it = vocab_.find(token);
  if (it == vocab_.end()) return std::nullopt;
  return it->second;
}

}  // namespace sieve::tokenizer
