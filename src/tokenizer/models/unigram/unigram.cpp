#include "tokenizer/models/unigram/unigram.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "tokenizer/core/unicode.hpp"

namespace sieve::tokenizer {
namespace {

// Hugging Face's (and SentencePiece's) kUnkPenalty: an unknown character
// scores this much below the worst vocabulary entry.
constexpr double kUnkPenalty = 10.0;

}  // namespace

Unigram::Unigram(Pieces pieces, std::optional<std::uint32_t> unk_id, bool byte_fallback, std::size_t cache_capacity)
    : pieces_(std::move(pieces)), unk_id_(unk_id), byte_fallback_(byte_fallback), cache_(cache_capacity) {
  if (unk_id_) {
    if (pieces_.empty()) throw Error(ErrorCode::kParse, "the vocabulary is empty but at least <unk> is needed");
    if (*unk_id_ >= pieces_.size()) throw Error(ErrorCode::kParse, "unk_id is not an index into the vocabulary");
  }
  if (pieces_.size() > UINT32_MAX) throw Error(ErrorCode::kParse, "vocabulary too large");
  double min_score = std::numeric_limits<double>::infinity();
  token_to_id_.reserve(pieces_.size());
  for (std::size_t id = 0; id < pieces_.size(); ++id) {
    const auto& [token, score] = pieces_[id];
    // A repeated token keeps its last id, as Hugging Face's map does.
    token_to_id_.insert_or_assign(token, static_cast<std::uint32_t>(id));
    min_score = std::min(min_score, score);
  }
  // In vocabulary order, so a repeated token keeps its last id here too. The
  // empty token is never found by a prefix search, as in Hugging Face.
  std::vector<std::pair<std::string_view, std::uint32_t>> entries;
  entries.reserve(pieces_.size());
  for (std::size_t id = 0; id < pieces_.size(); ++id) {
    if (!pieces_[id].first.empty()) entries.emplace_back(pieces_[id].first, static_cast<std::uint32_t>(id));
  }
  trie_ = ByteTrie(entries);
  unk_score_ = min_score - kUnkPenalty;
  for (unsigned b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    byte_ids_[b] = token_to_id(name);
  }
}

std::unique_ptr<Model> Unigram::from_json(const JsonView& node) {
  std::optional<std::uint32_t> unk_id;
  if (const auto unk = node.find("unk_id")) {
    const std::uint64_t value = unk->as_uint();
    if (value > UINT32_MAX) unk->fail("unk_id out of range");
    unk_id = static_cast<std::uint32_t>(value);
  }
  const bool byte_fallback = node.get_bool("byte_fallback", false);
  const JsonView vocab = node.at("vocab");
  vocab.expect_array();
  Pieces pieces;
  pieces.reserve(vocab.array_size());
  for (std::size_t i = 0; i < vocab.array_size(); ++i) {
    const JsonView entry = vocab.at(i);
    entry.expect_array();
    if (entry.array_size() != 2) entry.fail("expected [piece, score]");
    pieces.emplace_back(entry.at(0).as_string(), entry.at(1).as_serde_double());
  }
  try {
    return std::make_unique<Unigram>(std::move(pieces), unk_id, byte_fallback);
  } catch (const Error& e) {
    node.fail(e.message());
  }
}

std::uint32_t Unigram::missing_unk() const {
  throw Error(ErrorCode::kParse, "Unigram: a character is not in the vocabulary and the model has no unk_id");
}

// A run of unknown characters: one token for the whole run, or with byte
// fallback one token per byte, each spanning the whole run (as Hugging Face
// does it).
void Unigram::emit_unknown_run(std::string_view piece, std::uint32_t begin, std::uint32_t end,
                               std::vector<Token>& out) const {
  const std::string_view text = piece.substr(begin, end - begin);
  // The fused text can itself be a vocabulary entry (the unknown token's own
  // spelling, typically): Hugging Face looks the text up again.
  if (const auto id = token_to_id(text)) {
    out.push_back(Token{*id, begin, end});
    return;
  }
  if (byte_fallback_ &&
      std::all_of(text.begin(), text.end(), [&](char c) { return byte_ids_[static_cast<unsigned char>(c)]; })) {
    for (const char c : text) out.push_back(Token{*byte_ids_[static_cast<unsigned char>(c)], begin, end});
    return;
  }
  out.push_back(Token{unk_id_ ? *unk_id_ : missing_unk(), begin, end});
}

void Unigram::tokenize(std::string_view piece, std::vector<Token>& out) const {
  if (piece.empty()) return;
  if (cache_.lookup(piece, out)) return;

  // best[i]: the best segmentation of the first i bytes, by its last token.
  struct Best {
    double score;
    std::uint32_t start;  // kUnreached until some token ends here
    std::uint32_t id;
  };
  constexpr std::uint32_t kUnreached = ~std::uint32_t{0};
  thread_local std::vector<Best> best;
  const auto size = static_cast<std::uint32_t>(piece.size());
  best.assign(size + 1, Best{0.0, kUnreached, 0});

  const auto offer = [&](std::uint32_t start, std::uint32_t end, double score, std::uint32_t id) {
    Best& target = best[end];
    // Strictly better only: on a tie the earlier candidate stays, as in
    // Hugging Face (shorter tokens are offered first from each start).
    if (target.start == kUnreached || score > target.score) {
      target = Best{score, start, id};
      return true;
    }
    return false;
  };

  for (std::uint32_t start = 0; start < size;) {
    const double score_here = best[start].score;
    const auto char_len = static_cast<std::uint32_t>(
        std::min<std::size_t>(unicode::sequence_length(static_cast<unsigned char>(piece[start])), size - start));
    bool whole_char_known = false;
    trie_.for_each_prefix(piece.substr(start), [&](std::size_t length, std::uint32_t id) {
      offer(start, start + static_cast<std::uint32_t>(length), pieces_[id].second + score_here, id);
      if (length == char_len) whole_char_known = true;
    });
    if (!whole_char_known && offer(start, start + char_len, unk_score_ + score_here, 0)) {
      best[start + char_len].id = unk_id_ ? *unk_id_ : missing_unk();
    }
    start += char_len;
  }

  // Walk back from the end, then emit front to back; tokens whose id is the
  // unknown id fuse with their unknown neighbours.
  thread_local std::vector<std::uint32_t> ends;
  ends.clear();
  for (std::uint32_t end = size; end > 0; end = best[end].start) ends.push_back(end);
  const std::size_t first = out.size();
  std::uint32_t begin = 0;
  std::optional<std::uint32_t> unknown_from;
  for (auto it = ends.rbegin(); it != ends.rend(); ++it) {
    const std::uint32_t end = *it;
    const std::uint32_t id = best[end].id;
    if (unk_id_ && id == *unk_id_) {
      if (!unknown_from) unknown_from = begin;
    } else {
      if (unknown_from) emit_unknown_run(piece, *unknown_from, begin, out);
      unknown_from.reset();
      out.push_back(Token{id, begin, end});
    }
    begin = end;
  }
  if (unknown_from) emit_unknown_run(piece, *unknown_from, begin, out);
  cache_.store(piece, out.data() + first, out.size() - first);
}

std::optional<std::uint32_t> Unigram::token_to_id(std::string_view token) const {
  const auto it = token_to_id_.find(token);
  if (it == token_to_id_.end()) return std::nullopt;
  return it->second;
}

std::string_view Unigram::id_to_token(std::uint32_t id) const {
  if (id >= pieces_.size()) return {};
  return pieces_[id].first;
}

}  // namespace sieve::tokenizer
