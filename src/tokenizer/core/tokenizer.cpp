#include <algorithm>
#include <atomic>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "sieve/error.hpp"
#include "sieve/tokenizer.hpp"
#include "tokenizer/core/tokenizer_impl.hpp"
#include "tokenizer/core/truncation.hpp"
#include "tokenizer/core/unicode.hpp"

namespace sieve {

using tokenizer::Split;
using tokenizer::Token;

namespace {

// Rewrites byte offsets into `text` as code point offsets, as Python reports them.
void to_char_offsets(std::string_view text, std::vector<Offsets>& offsets) {
  if (offsets.empty()) return;
  bool ascii = true;
  for (const char c : text) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
  if (ascii) return;
  std::vector<std::uint32_t> chars_before(text.size() + 1);
  std::uint32_t count = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    chars_before[i] = count;
    if ((static_cast<unsigned char>(text[i]) & 0xC0U) != 0x80U) ++count;
  }
  chars_before[text.size()] = count;
  for (auto& [begin, end] : offsets) {
    // An end inside a character still counts that character.
    std::uint32_t char_end = chars_before[std::min<std::size_t>(end, text.size())];
    if (end < text.size() && end > begin && (static_cast<unsigned char>(text[end]) & 0xC0U) == 0x80U) ++char_end;
    begin = chars_before[std::min<std::size_t>(begin, text.size())];
    end = char_end;
  }
}

// Offsets into the text with invalid bytes replaced by U+FFFD (3 bytes
// each), mapped back to the caller's bytes.
void to_input_offsets(std::string_view input, std::vector<Offsets>& offsets) {
  std::vector<std::uint32_t> input_position;  // indexed by byte of the replaced text
  input_position.reserve(input.size() * 3 + 1);
  std::size_t pos = 0;
  while (pos < input.size()) {
    char32_t cp = 0;
    const std::size_t n = tokenizer::unicode::decode(input, pos, cp);
    const std::size_t replaced_length =
        n == 0 ? tokenizer::unicode::utf8_length(tokenizer::unicode::kReplacementChar) : n;
    for (std::size_t k = 0; k < replaced_length; ++k) {
      input_position.push_back(static_cast<std::uint32_t>(n == 0 ? pos : pos + k));
    }
    pos += n == 0 ? 1 : n;
  }
  input_position.push_back(static_cast<std::uint32_t>(input.size()));
  for (auto& [begin, end] : offsets) {
    const std::size_t last = input_position.size() - 1;
    begin = input_position[std::min<std::size_t>(begin, last)];
    end = input_position[std::min<std::size_t>(end, last)];
  }
}

std::size_t effective_threads(std::size_t requested, std::size_t count) {
  if (requested == 0) requested = std::max(1U, std::thread::hardware_concurrency());
  // Starting a thread costs about as much as encoding a few short texts.
  constexpr std::size_t kMinInputsPerThread = 8;
  return std::max<std::size_t>(1, std::min(requested, count / kMinInputsPerThread));
}

}  // namespace

Encoding TokenizerImpl::encode_sequence(std::string_view text) const {
  std::string replaced;
  const std::string_view input = text;
  if (const std::size_t bad = tokenizer::unicode::find_invalid_utf8(text); bad != std::string_view::npos) {
    if (invalid_utf8 == InvalidUtf8::kError) {
      throw Error(ErrorCode::kInvalidInput, "input is not valid UTF-8 (byte offset " + std::to_string(bad) + ")");
    }
    replaced = tokenizer::unicode::replace_invalid_utf8(text);
    text = replaced;
  }
  if (text.size() > UINT32_MAX / 2) {
    throw Error(ErrorCode::kInvalidInput, "input of " + std::to_string(text.size()) + " bytes is too large");
  }

  std::vector<Split> splits;
  added.extract_and_normalize(text, normalizer.get(), splits);
  if (pre_tokenizer) pre_tokenizer->pre_tokenize(splits);

  Encoding out;
  std::vector<Token> tokens;
  for (auto& split : splits) {
    tokens.clear();
    const std::vector<Token>* source = &split.tokens;
    if (!split.tokenized) {
      model->tokenize(split.text.get(), tokens);
      source = &tokens;
    }
    for (const Token& t : *source) {
      out.ids.push_back(t.id);
      out.offsets.push_back(split.text.original_offsets(t.begin, t.end));
    }
  }
  if (offset_unit == OffsetUnit::kChar) {
    // Each replaced byte is one U+FFFD: one character either way.
    to_char_offsets(text, out.offsets);
  } else if (!replaced.empty()) {
    to_input_offsets(input, out.offsets);
  }
  const std::size_t n = out.ids.size();
  out.type_ids.assign(n, 0);
  out.special_tokens_mask.assign(n, 0);
  out.attention_mask.assign(n, 1);
  return out;
}

std::size_t TokenizerImpl::added_tokens(bool is_pair) const {
  return post_processor ? post_processor->added_tokens(is_pair) : 0;
}

namespace {

// The vocabulary as post-processors see it during one encode call: added
// tokens matched in the input read as matched.
class InputTokenLookup final : public tokenizer::TokenLookup {
 public:
  InputTokenLookup(const TokenizerImpl& impl, std::span<const std::string_view> texts) : impl_(impl), texts_(texts) {}
  [[nodiscard]] std::string_view id_to_token(std::uint32_t id) const override { return impl_.id_to_token(id); }
  [[nodiscard]] std::string_view token_text(std::uint32_t id, Offsets offsets, std::size_t sequence) const override {
    if (sequence < texts_.size()) {
      const std::string_view matched = impl_.matched_token_text(id, offsets, texts_[sequence]);
      if (!matched.empty()) return matched;
    }
    return impl_.id_to_token(id);
  }

 private:
  const TokenizerImpl& impl_;
  std::span<const std::string_view> texts_;
};

}  // namespace

Encoding TokenizerImpl::post_process(Encoding first, std::optional<Encoding> second, bool add_special_tokens,
                                     std::span<const std::string_view> texts) const {
  const InputTokenLookup lookup(*this, texts);
  if (truncation) {
    TruncationParams params = *truncation;
    const std::size_t n_added = add_special_tokens ? added_tokens(second.has_value()) : 0;
    if (params.max_length < n_added) {
      throw Error(ErrorCode::kInvalidArgument, "truncation max_length " + std::to_string(params.max_length) +
                                                   " is smaller than the " + std::to_string(n_added) +
                                                   " special tokens added");
    }
    params.max_length -= n_added;
    tokenizer::truncate_encodings(first, second, params);
  }
  const auto process = [&](Encoding a, std::optional<Encoding> b) {
    return post_processor ? post_processor->process(std::move(a), std::move(b), add_special_tokens, lookup)
                          : tokenizer::concatenate(std::move(a), std::move(b));
  };
  // Overflowing windows combine as Hugging Face's Encoding::merge_with does:
  // each window of the first with the second and its windows, then the
  // first with each window of the second.
  std::vector<Encoding> overflowing;
  std::vector<Encoding> first_windows = std::move(first.overflowing);
  first.overflowing.clear();
  std::vector<Encoding> second_windows;
  if (second) {
    second_windows = std::move(second->overflowing);
    second->overflowing.clear();
  }
  for (const Encoding& window : first_windows) {
    if (!second) {
      overflowing.push_back(process(window, std::nullopt));
      continue;
    }
    overflowing.push_back(process(window, *second));
    for (const Encoding& other : second_windows) overflowing.push_back(process(window, other));
  }
  for (const Encoding& other : second_windows) overflowing.push_back(process(first, other));

  Encoding out = process(std::move(first), std::move(second));
  out.overflowing = std::move(overflowing);
  if (padding) tokenizer::pad_encoding(out, tokenizer::padded_length(out.size(), *padding), *padding);
  return out;
}

template <typename EncodeOne>
std::vector<Encoding> TokenizerImpl::encode_many(std::size_t count, std::size_t threads, EncodeOne encode_one) const {
  std::vector<Encoding> out(count);
  const auto encode_at = [&](std::size_t i) {
    try {
      out[i] = encode_one(i);
    } catch (const Error& e) {
      throw Error(e.code(), e.message(), i);
    }
  };
  const std::size_t n_threads = effective_threads(threads, count);
  if (n_threads <= 1) {
    for (std::size_t i = 0; i < count; ++i) encode_at(i);
  } else {
    // Small chunks taken in turn keep threads busy when lengths vary.
    constexpr std::size_t kChunk = 16;
    std::atomic<std::size_t> next{0};
    std::mutex error_mutex;
    std::exception_ptr error;
    std::size_t error_index = count;
    const auto worker = [&] {
      while (true) {
        const std::size_t begin = next.fetch_add(kChunk);
        if (begin >= count) return;
        for (std::size_t i = begin; i < std::min(begin + kChunk, count); ++i) {
          try {
            encode_at(i);
          } catch (...) {
            // Report the first failing input, whichever thread met it.
            const std::lock_guard lock(error_mutex);
            if (i < error_index) {
              error_index = i;
              error = std::current_exception();
            }
            return;
          }
        }
      }
    };
    std::vector<std::jthread> pool;
    pool.reserve(n_threads - 1);
    for (std::size_t t = 1; t < n_threads; ++t) pool.emplace_back(worker);
    worker();
    pool.clear();
    if (error) std::rethrow_exception(error);
  }
  return out;
}

void TokenizerImpl::pad_batch(std::vector<Encoding>& encodings) const {
  if (!padding || padding->fixed_length) return;
  std::size_t longest = 0;
  for (const auto& e : encodings) longest = std::max(longest, e.size());
  const std::size_t length = tokenizer::padded_length(longest, *padding);
  for (auto& e : encodings) tokenizer::pad_encoding(e, length, *padding);
}

Tokenizer::Tokenizer(std::unique_ptr<TokenizerImpl> impl) : impl_(std::move(impl)) {}
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;
Tokenizer::~Tokenizer() = default;

Tokenizer Tokenizer::from_json(std::string_view json, std::string_view origin) {
  return Tokenizer(load_tokenizer_json(json, origin));
}

Tokenizer Tokenizer::from_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::kNotFound, path.string() + ": cannot open tokenizer file");
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) throw Error(ErrorCode::kRuntime, path.string() + ": read error");
  return from_json(content.str(), path.string());
}

Encoding Tokenizer::encode(std::string_view text, bool add_special_tokens) const {
  const std::string_view texts[] = {text};
  return impl_->post_process(impl_->encode_sequence(text), std::nullopt, add_special_tokens, texts);
}

Encoding Tokenizer::encode_pair(std::string_view first, std::string_view second, bool add_special_tokens) const {
  const std::string_view texts[] = {first, second};
  return impl_->post_process(impl_->encode_sequence(first), impl_->encode_sequence(second), add_special_tokens, texts);
}

std::vector<Encoding> Tokenizer::encode_each(std::span<const std::string_view> texts, bool add_special_tokens,
                                             std::size_t threads) const {
  return impl_->encode_many(texts.size(), threads, [&](std::size_t i) { return encode(texts[i], add_special_tokens); });
}

std::vector<Encoding> Tokenizer::encode_pair_each(std::span<const TextPair> pairs, bool add_special_tokens,
                                                  std::size_t threads) const {
  return impl_->encode_many(pairs.size(), threads, [&](std::size_t i) {
    return encode_pair(pairs[i].first, pairs[i].second, add_special_tokens);
  });
}

std::vector<Encoding> Tokenizer::encode_batch(std::span<const std::string_view> texts, bool add_special_tokens,
                                              std::size_t threads) const {
  auto out = encode_each(texts, add_special_tokens, threads);
  impl_->pad_batch(out);
  return out;
}

std::vector<Encoding> Tokenizer::encode_pair_batch(std::span<const TextPair> pairs, bool add_special_tokens,
                                                   std::size_t threads) const {
  auto out = encode_pair_each(pairs, add_special_tokens, threads);
  impl_->pad_batch(out);
  return out;
}

std::string_view TokenizerImpl::id_to_token(std::uint32_t id) const {
  if (const auto* token = added.find(id)) return token->content;
  return model->id_to_token(id);
}

std::string Tokenizer::decode(std::span<const std::uint32_t> ids, bool skip_special_tokens) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (const std::uint32_t id : ids) {
    const auto* token = impl_->added.find(id);
    if (token != nullptr && token->special && skip_special_tokens) continue;
    const std::string_view text = impl_->id_to_token(id);
    if (text.empty() && token == nullptr && id >= impl_->model->vocab_size()) {
      throw Error(ErrorCode::kInvalidArgument, "decode: token id " + std::to_string(id) + " is not in the vocabulary");
    }
    tokens.emplace_back(text);
  }
  if (impl_->decoder) {
    impl_->decoder->decode_chain(tokens);
    std::string out;
    for (const auto& t : tokens) out += t;
    return out;
  }
  // Without a decoder Hugging Face joins the tokens with spaces.
  std::string out;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (i) out.push_back(' ');
    out += tokens[i];
  }
  return out;
}

std::optional<std::uint32_t> Tokenizer::token_to_id(std::string_view token) const {
  if (const auto* added = impl_->added.find(token)) return added->id;
  return impl_->model->token_to_id(token);
}

std::string_view Tokenizer::id_to_token(std::uint32_t id) const {
  return impl_->id_to_token(id);
}

namespace {

// The bytes of `text` that offsets in the tokenizer's unit cover.
std::string_view covered_text(std::string_view text, Offsets offsets, OffsetUnit unit) {
  auto [begin, end] = offsets;
  if (unit == OffsetUnit::kChar) {
    std::size_t byte = 0;
    std::size_t chars = 0;
    std::size_t byte_begin = text.size();
    std::size_t byte_end = text.size();
    while (byte <= text.size()) {
      if (chars == begin && byte_begin == text.size()) byte_begin = byte;
      if (chars == end) {
        byte_end = byte;
        break;
      }
      if (byte == text.size()) break;
      ++byte;
      while (byte < text.size() && (static_cast<unsigned char>(text[byte]) & 0xC0U) == 0x80U) ++byte;
      ++chars;
    }
    begin = static_cast<std::uint32_t>(byte_begin);
    end = static_cast<std::uint32_t>(byte_end);
  }
  if (end <= begin || end > text.size()) return {};
  return text.substr(begin, end - begin);
}

}  // namespace

std::string_view TokenizerImpl::matched_token_text(std::uint32_t id, Offsets offsets, std::string_view text) const {
  const auto* token = added.find(id);
  if (token == nullptr) return {};
  // Only a match of the token itself; an [UNK] from the model also has an
  // added-token id but spans an unknown word. A normalized token's string is,
  // for Hugging Face, the normalized text it matched; the original slice has
  // the same stripped whitespace around it, which is what offset trimming
  // looks at.
  const std::string_view slice = covered_text(text, offsets, offset_unit);
  if (slice.find(token->content) == std::string_view::npos) return {};
  return slice;
}

std::string Tokenizer::token_string(const Encoding& encoding, std::size_t i, std::string_view text,
                                    std::string_view pair_text) const {
  const std::uint32_t id = encoding.ids.at(i);
  for (const std::string_view source : {text, pair_text}) {
    const std::string_view matched = impl_->matched_token_text(id, encoding.offsets.at(i), source);
    if (!matched.empty()) return std::string(matched);
  }
  return std::string(id_to_token(id));
}

std::size_t Tokenizer::vocab_size() const {
  return impl_->model->vocab_size();
}

std::size_t Tokenizer::id_bound() const {
  std::size_t bound = impl_->model->id_bound();
  for (const auto& token : impl_->added.tokens()) bound = std::max<std::size_t>(bound, std::size_t{token.id} + 1);
  if (impl_->post_processor) {
    // The special tokens of both templates: what the processor adds around empty inputs.
    const InputTokenLookup lookup(*impl_, {});
    for (const bool pair : {false, true}) {
      try {
        const Encoding e = impl_->post_processor->process(
            Encoding{}, pair ? std::optional<Encoding>(Encoding{}) : std::nullopt, true, lookup);
        for (const std::uint32_t id : e.ids) bound = std::max<std::size_t>(bound, std::size_t{id} + 1);
      } catch (const Error&) {
        // A template that cannot process a pair (or at all) gives no ids: every such encode fails.
      }
    }
  }
  return bound;
}
const std::optional<TruncationParams>& Tokenizer::truncation() const {
  return impl_->truncation;
}
const std::optional<PaddingParams>& Tokenizer::padding() const {
  return impl_->padding;
}
void Tokenizer::set_truncation(std::optional<TruncationParams> params) {
  impl_->truncation = std::move(params);
}
void Tokenizer::set_padding(std::optional<PaddingParams> params) {
  impl_->padding = std::move(params);
}
void Tokenizer::set_invalid_utf8(InvalidUtf8 policy) {
  impl_->invalid_utf8 = policy;
}
void Tokenizer::set_offset_unit(OffsetUnit unit) {
  impl_->offset_unit = unit;
}
std::size_t Tokenizer::num_special_tokens_to_add(bool is_pair) const {
  return impl_->added_tokens(is_pair);
}

}  // namespace sieve
