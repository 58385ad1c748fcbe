#include "tokenizer/models/bpe/bpe.hpp"

#include <algorithm>
#include <cstdio>

#include "tokenizer/core/unicode.hpp"

namespace sieve::tokenizer {
namespace {

constexpr std::uint64_t pair_key(std::uint32_t left, std::uint32_t right) noexcept {
  return static_cast<std::uint64_t>(left) << 32 | right;
}

// Length of the character starting at `pos`, never past the end.
std::size_t char_length(std::string_view text, std::size_t pos) noexcept {
  return std::min(unicode::sequence_length(static_cast<unsigned char>(text[pos])), text.size() - pos);
}

// A number naming one character: its code point when it is one or two bytes
// long (so the common characters, and all of byte-level BPE's alphabet, index
// a small dense table), its raw bytes otherwise (always >= 0xE0000000).
std::uint32_t char_key(std::string_view text, std::size_t pos, std::size_t len) noexcept {
  const auto byte = [&](std::size_t i) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(text[pos + i]));
  };
  if (len == 1) return byte(0);
  if (len == 2) return (byte(0) & 0x1F) << 6 | (byte(1) & 0x3F);
  std::uint32_t key = 0;
  for (std::size_t i = 0; i < 4; ++i) key = key << 8 | (i < len ? byte(i) : 0);
  return key;
}

constexpr unsigned kContinuing = 1;
constexpr unsigned kFinal = 2;

struct HeapEntry {
  std::uint32_t rank;
  std::uint32_t pos;
  std::uint32_t new_id;
};

// std::push_heap keeps the largest on top; this puts the lowest rank there,
// the leftmost position among equal ranks, as Hugging Face's queue does.
bool comes_later(const HeapEntry& a, const HeapEntry& b) noexcept {
  return a.rank != b.rank ? a.rank > b.rank : a.pos > b.pos;
}

}  // namespace

Bpe::Bpe(Vocab vocab, const Merges& merges, Options options)
    : vocab_(std::move(vocab)), options_(std::move(options)), cache_(options_.cache_capacity) {
  id_to_token_ = IdToToken(vocab_);
  if (options_.unk_token) unk_id_ = token_to_id(*options_.unk_token);

  merges_.reserve(merges.size());
  const std::size_t prefix_len = options_.continuing_subword_prefix.size();
  for (std::size_t rank = 0; rank < merges.size(); ++rank) {
    // Named references, not structured bindings: clang 14 cannot capture those.
    const std::string& left = merges[rank].first;
    const std::string& right = merges[rank].second;
    const auto missing = [&](const std::string& token) {
      return Error(ErrorCode::kParse, "merge " + std::to_string(rank) + " (\"" + left + " " + right + "\"): token \"" +
                                          token + "\" is not in the vocabulary");
    };
    const auto left_id = token_to_id(left);
    if (!left_id) throw missing(left);
    const auto right_id = token_to_id(right);
    if (!right_id) throw missing(right);
    // Hugging Face drops the prefix's length from the right part whether or
    // not it starts with the prefix.
    if (right.size() < prefix_len) throw missing(right);
    const std::string merged = left + right.substr(prefix_len);
    const auto merged_id = token_to_id(merged);
    if (!merged_id) throw missing(merged);
    // A repeated pair keeps its last rank, as Hugging Face's map does.
    merges_.insert_or_assign(pair_key(*left_id, *right_id), pair_key(static_cast<std::uint32_t>(rank), *merged_id));
  }

  build_char_table();
  for (unsigned b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    byte_ids_[b] = token_to_id(name).value_or(kNoId);
  }
}

void Bpe::build_char_table() {
  const std::string& prefix = options_.continuing_subword_prefix;
  const std::string& suffix = options_.end_of_word_suffix;
  variant_mask_ = (prefix.empty() ? 0U : kContinuing) | (suffix.empty() ? 0U : kFinal);
  for (unsigned variant = 0; variant < 4; ++variant) {
    if ((variant & variant_mask_) == variant) dense_char_ids_[variant].assign(kDenseChars, kNoId);
  }
  for (const auto& [token, id] : vocab_) {
    for (unsigned variant = 0; variant < 4; ++variant) {
      if ((variant & variant_mask_) != variant) continue;
      const std::string_view head = variant & kContinuing ? std::string_view(prefix) : std::string_view();
      const std::string_view tail = variant & kFinal ? std::string_view(suffix) : std::string_view();
      const std::string_view text = token;
      if (text.size() <= head.size() + tail.size() || !text.starts_with(head) || !text.ends_with(tail)) continue;
      const std::string_view middle = text.substr(head.size(), text.size() - head.size() - tail.size());
      if (unicode::sequence_length(static_cast<unsigned char>(middle[0])) != middle.size()) continue;
      const std::uint32_t key = char_key(middle, 0, middle.size());
      if (key < kDenseChars) {
        dense_char_ids_[variant][key] = id;
      } else {
        sparse_char_ids_.insert_or_assign(static_cast<std::uint64_t>(key) << 2 | variant, id);
      }
    }
  }
}

std::uint32_t Bpe::char_id(std::uint32_t key, unsigned variant) const noexcept {
  variant &= variant_mask_;
  if (key < kDenseChars) return dense_char_ids_[variant][key];
  const std::uint64_t* id = sparse_char_ids_.find(static_cast<std::uint64_t>(key) << 2 | variant);
  return id ? static_cast<std::uint32_t>(*id) : kNoId;
}

std::uint32_t Bpe::unk_id() const {
  if (!unk_id_) {
    throw Error(ErrorCode::kParse, "BPE: the unknown token \"" + *options_.unk_token + "\" is not in the vocabulary");
  }
  return *unk_id_;
}

std::unique_ptr<Model> Bpe::from_json(const JsonView& node) {
  if (const auto dropout = node.find("dropout")) {
    if (dropout->as_double() != 0.0) {
      dropout->fail("BPE dropout makes tokenization random; only null or 0 is supported", ErrorCode::kUnsupported);
    }
  }
  Options options;
  if (const auto unk = node.find("unk_token")) options.unk_token = unk->as_string();
  if (const auto prefix = node.find("continuing_subword_prefix"))
    options.continuing_subword_prefix = prefix->as_string();
  if (const auto suffix = node.find("end_of_word_suffix")) options.end_of_word_suffix = suffix->as_string();
  options.fuse_unk = node.get_bool("fuse_unk", false);
  options.byte_fallback = node.get_bool("byte_fallback", false);
  options.ignore_merges = node.get_bool("ignore_merges", false);

  Vocab vocab = read_vocab_object(node.at("vocab"));

  // Either every merge is a "left right" string (a merges.txt line) or every
  // merge is a [left, right] pair; Hugging Face accepts no mixture.
  const JsonView merges_node = node.at("merges");
  merges_node.expect_array();
  Merges merges;
  merges.reserve(merges_node.array_size());
  const bool as_strings = merges_node.array_size() > 0 && merges_node.raw()[0].is_string();
  for (std::size_t i = 0; i < merges_node.array_size(); ++i) {
    const JsonView merge = merges_node.at(i);
    if (as_strings) {
      const std::string line = merge.as_string();
      if (line.starts_with("#version")) continue;
      const std::size_t space = line.find(' ');
      if (space == std::string::npos || line.find(' ', space + 1) != std::string::npos) {
        merge.fail("expected a merge \"left right\" with exactly one space");
      }
      merges.emplace_back(line.substr(0, space), line.substr(space + 1));
    } else {
      merge.expect_array();
      if (merge.array_size() != 2) merge.fail("expected a merge [left, right]");
      merges.emplace_back(merge.at(0).as_string(), merge.at(1).as_string());
    }
  }
  try {
    return std::make_unique<Bpe>(std::move(vocab), merges, std::move(options));
  } catch (const Error& e) {
    merges_node.fail(e.message());
  }
}

void Bpe::append_byte_tokens(std::string_view piece, std::size_t begin, std::size_t end, unsigned variant,
                             std::vector<Symbol>& symbols, bool& done) const {
  // Hugging Face spells out the looked-up string, prefix and suffix
  // included, one byte token per byte, each one byte long.
  const std::string_view head = variant & kContinuing ? std::string_view(options_.continuing_subword_prefix) : "";
  const std::string_view tail = variant & kFinal ? std::string_view(options_.end_of_word_suffix) : "";
  const std::string_view parts[3] = {head, piece.substr(begin, end - begin), tail};
  for (const std::string_view part : parts) {
    for (const char c : part) {
      if (byte_ids_[static_cast<unsigned char>(c)] == kNoId) return;
    }
  }
  for (const std::string_view part : parts) {
    for (const char c : part) symbols.push_back(Symbol{byte_ids_[static_cast<unsigned char>(c)], 1, kNoMerge, 0});
  }
  done = true;
}

void Bpe::split_into_symbols(std::string_view piece, std::vector<Symbol>& symbols) const {
  symbols.clear();
  bool unk_pending = false;
  std::uint32_t unk_pending_id = 0;
  std::uint32_t unk_pending_len = 0;
  for (std::size_t pos = 0; pos < piece.size();) {
    const std::size_t len = char_length(piece, pos);
    const unsigned variant = (pos == 0 ? 0U : kContinuing) | (pos + len == piece.size() ? kFinal : 0U);
    const std::uint32_t id = char_id(char_key(piece, pos, len), variant);
    const auto char_len = static_cast<std::uint32_t>(len);
    if (id != kNoId) {
      if (unk_pending) symbols.push_back(Symbol{unk_pending_id, unk_pending_len, kNoMerge, 0});
      unk_pending = false;
      symbols.push_back(Symbol{id, char_len, kNoMerge, 0});
    } else {
      bool done = false;
      // Like Hugging Face, byte tokens do not flush a pending unknown token:
      // it lands after them.
      if (options_.byte_fallback) append_byte_tokens(piece, pos, pos + len, variant, symbols, done);
      if (!done && options_.unk_token) {
        if (unk_pending && options_.fuse_unk) {
          unk_pending_len += char_len;
        } else {
          if (unk_pending) symbols.push_back(Symbol{unk_pending_id, unk_pending_len, kNoMerge, 0});
          unk_pending = true;
          unk_pending_id = unk_id();
          unk_pending_len = char_len;
        }
      }
      // Without an unknown token the character is dropped, as in Hugging Face.
    }
    pos += len;
  }
  if (unk_pending) symbols.push_back(Symbol{unk_pending_id, unk_pending_len, kNoMerge, 0});
}

void Bpe::set_next_merge(Symbol& left, std::uint32_t right_id) const noexcept {
  const std::uint64_t* merge = merges_.find(pair_key(left.id, right_id));
  left.next_rank = merge ? static_cast<std::uint32_t>(*merge >> 32) : kNoMerge;
  left.next_id = merge ? static_cast<std::uint32_t>(*merge) : 0;
}

// For short words: find the best pair by scanning, merge, repeat. Quadratic,
// but on a handful of symbols a scan beats any queue.
void Bpe::merge_by_scanning(std::vector<Symbol>& symbols) const {
  std::size_t count = symbols.size();
  for (std::size_t i = 0; i + 1 < count; ++i) set_next_merge(symbols[i], symbols[i + 1].id);
  while (count > 1) {
    std::uint32_t best_rank = kNoMerge;
    std::size_t at = 0;
    for (std::size_t i = 0; i + 1 < count; ++i) {
      if (symbols[i].next_rank < best_rank) {
        best_rank = symbols[i].next_rank;
        at = i;
      }
    }
    if (best_rank == kNoMerge) break;
    Symbol& merged = symbols[at];
    merged.id = merged.next_id;
    merged.len += symbols[at + 1].len;
    std::copy(symbols.begin() + static_cast<std::ptrdiff_t>(at) + 2,
              symbols.begin() + static_cast<std::ptrdiff_t>(count),
              symbols.begin() + static_cast<std::ptrdiff_t>(at) + 1);
    --count;
    if (at + 1 < count) {
      set_next_merge(merged, symbols[at + 1].id);
    } else {
      merged.next_rank = kNoMerge;
    }
    if (at > 0) set_next_merge(symbols[at - 1], merged.id);
  }
  symbols.resize(count);
}

// For long words: Hugging Face's own algorithm (word.rs merge_all), a queue
// of candidate merges by (rank, position) over a linked list of symbols,
// where stale entries are skipped when popped.
void Bpe::merge_with_heap(std::vector<Symbol>& symbols) const {
  thread_local std::vector<HeapEntry> heap;
  thread_local std::vector<std::uint32_t> prev;
  thread_local std::vector<std::uint32_t> next;
  constexpr std::uint32_t kNone = ~std::uint32_t{0};
  const auto count = static_cast<std::uint32_t>(symbols.size());
  heap.clear();
  prev.resize(count);
  next.resize(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    prev[i] = i == 0 ? kNone : i - 1;
    next[i] = i + 1 == count ? kNone : i + 1;
  }
  const auto push_candidate = [&](std::uint32_t pos, std::uint32_t right) {
    if (const std::uint64_t* merge = merges_.find(pair_key(symbols[pos].id, symbols[right].id))) {
      heap.push_back(HeapEntry{static_cast<std::uint32_t>(*merge >> 32), pos, static_cast<std::uint32_t>(*merge)});
      std::push_heap(heap.begin(), heap.end(), comes_later);
    }
  };
  for (std::uint32_t i = 0; i + 1 < count; ++i) push_candidate(i, i + 1);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), comes_later);
    const HeapEntry top = heap.back();
    heap.pop_back();
    Symbol& left = symbols[top.pos];
    if (left.len == 0 || next[top.pos] == kNone) continue;
    const std::uint32_t right_pos = next[top.pos];
    Symbol& right = symbols[right_pos];
    // An entry is stale when the pair at its position changed since.
    const std::uint64_t* merge = merges_.find(pair_key(left.id, right.id));
    if (merge == nullptr || static_cast<std::uint32_t>(*merge) != top.new_id) continue;
    left.id = top.new_id;
    left.len += right.len;
    right.len = 0;
    next[top.pos] = next[right_pos];
    if (next[right_pos] != kNone) prev[next[right_pos]] = top.pos;
    if (prev[top.pos] != kNone) push_candidate(prev[top.pos], top.pos);
    if (next[top.pos] != kNone) push_candidate(top.pos, next[top.pos]);
  }
  std::erase_if(symbols, [](const Symbol& s) { return s.len == 0; });
}

void Bpe::tokenize(std::string_view piece, std::vector<Token>& out) const {
  if (piece.empty()) return;
  if (options_.ignore_merges) {
    if (const auto id = token_to_id(piece)) {
      out.push_back(Token{*id, 0, static_cast<std::uint32_t>(piece.size())});
      return;
    }
  }
  if (cache_.lookup(piece, out)) return;

  thread_local std::vector<Symbol> symbols;
  split_into_symbols(piece, symbols);
  if (symbols.size() > kHeapThreshold) {
    merge_with_heap(symbols);
  } else {
    merge_by_scanning(symbols);
  }

  const std::size_t first = out.size();
  const auto size = static_cast<std::uint32_t>(piece.size());
  std::uint32_t begin = 0;
  for (const Symbol& symbol : symbols) {
    // Byte tokens of a prefix or suffix make Hugging Face's offsets run past
    // the piece; they are clamped so they always slice it.
    const std::uint32_t end = std::min(begin + symbol.len, size);
    out.push_back(Token{symbol.id, begin, end});
    begin = end;
  }
  cache_.store(piece, out.data() + first, out.size() - first);
}

std::optional<std::uint32_t> Bpe::token_to_id(std::string_view token) const {
  const auto it = vocab_.find(token);
  if (it == vocab_.end()) return std::nullopt;
  return it->second;
}

}  // namespace sieve::tokenizer
