#include "tokenizer/models/wordpiece/wordpiece.hpp"

#include <algorithm>

#include "tokenizer/core/unicode.hpp"

namespace sieve::tokenizer {

WordPiece::WordPiece(Vocab vocab, Options options) : vocab_(std::move(vocab)), options_(std::move(options)) {
  std::uint32_t max_id = 0;
  for (const auto& [token, id] : vocab_) max_id = std::max(max_id, id);
  id_to_token_.resize(vocab_.empty() ? 0 : static_cast<std::size_t>(max_id) + 1);
  const std::string& prefix = options_.continuing_subword_prefix;
  std::vector<std::pair<std::string_view, std::uint32_t>> starts;
  std::vector<std::pair<std::string_view, std::uint32_t>> continuations;
  for (const auto& [token, id] : vocab_) {
    id_to_token_[id] = token;
    starts.emplace_back(token, id);
    if (token.size() > prefix.size() && token.compare(0, prefix.size(), prefix) == 0) {
      continuations.emplace_back(std::string_view(token).substr(prefix.size()), id);
    }
  }
  starts_ = ByteTrie(starts);
  continuations_ = ByteTrie(continuations);
  if (const auto it = vocab_.find(options_.unk_token); it != vocab_.end()) unk_id_ = it->second;
}

std::unique_ptr<Model> WordPiece::from_json(const JsonView& node) {
  Options options;
  options.unk_token = node.get_string("unk_token", "[UNK]");
  options.continuing_subword_prefix = node.get_string("continuing_subword_prefix", "##");
  options.max_input_chars_per_word = node.get_uint("max_input_chars_per_word", 100);
  const JsonView vocab_node = node.at("vocab");
  vocab_node.expect_object();
  Vocab vocab;
  vocab.reserve(vocab_node.raw().size());
  for (const auto& [token, id] : vocab_node.raw().items()) {
    if (!id.is_number_unsigned() && !(id.is_number_integer() && id.get<std::int64_t>() >= 0)) {
      vocab_node.at(token).fail("expected a non-negative integer id");
    }
    const auto value = id.get<std::uint64_t>();
    if (value > UINT32_MAX) vocab_node.at(token).fail("id out of range");
    vocab.emplace(token, static_cast<std::uint32_t>(value));
  }
  return std::make_unique<WordPiece>(std::move(vocab), std::move(options));
}

void WordPiece::push_unknown(std::string_view piece, std::vector<Token>& out) const {
  if (!unk_id_) {
    throw Error(ErrorCode::kParse,
                "WordPiece: the unknown token \"" + options_.unk_token + "\" is not in the vocabulary");
  }
  out.push_back(Token{*unk_id_, 0, static_cast<std::uint32_t>(piece.size())});
}

void WordPiece::tokenize(std::string_view piece, std::vector<Token>& out) const {
  // Counting characters needs only the lead bytes.
  std::size_t chars = 0;
  for (const char c : piece) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  if (chars > options_.max_input_chars_per_word) {
    push_unknown(piece, out);
    return;
  }
  const std::size_t first_new = out.size();
  std::size_t start = 0;
  while (start < piece.size()) {
    // Vocabulary entries are whole UTF-8 characters, so a match never ends
    // inside one.
    const auto match = (start == 0 ? starts_ : continuations_).longest_prefix(piece.substr(start));
    if (!match) {
      out.resize(first_new);
      push_unknown(piece, out);
      return;
    }
    const std::size_t end = start + match->first;
    out.push_back(Token{match->second, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(end)});
    start = end;
  }
}

std::optional<std::uint32_t> WordPiece::token_to_id(std::string_view token) const {
  const auto it = vocab_.find(token);
  if (it == vocab_.end()) return std::nullopt;
  return it->second;
}

std::string_view WordPiece::id_to_token(std::uint32_t id) const {
  if (id >= id_to_token_.size()) return {};
  return id_to_token_[id];
}

}  // namespace sieve::tokenizer
