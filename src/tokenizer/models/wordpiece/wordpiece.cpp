#include "tokenizer/models/wordpiece/wordpiece.hpp"

#include <algorithm>

#include "tokenizer/core/unicode.hpp"

namespace sieve::tokenizer {

WordPiece::WordPiece(Vocab vocab, Options options) : vocab_(std::move(vocab)), options_(std::move(options)) {
  id_to_token_ = IdToToken(vocab_);
  const std::string& prefix = options_.continuing_subword_prefix;
  std::vector<std::pair<std::string_view, std::uint32_t>> starts;
  std::vector<std::pair<std::string_view, std::uint32_t>> continuations;
  for (const auto& [token, id] : vocab_) {
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
  return std::make_unique<WordPiece>(read_vocab_object(node.at("vocab")), std::move(options));
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

}  // namespace sieve::tokenizer
