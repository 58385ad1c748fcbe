#include <fstream>
#include <sstream>

#include "sieve/error.hpp"
#include "sieve/tokenizer.hpp"
#include "tokenizer/core/tokenizer_impl.hpp"
#include "tokenizer/core/truncation.hpp"
#include "tokenizer/core/unicode.hpp"

namespace sieve {

using tokenizer::Split;
using tokenizer::Token;

Encoding TokenizerImpl::encode_sequence(std::string_view text) const {
  std::string replaced;
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
  const std::size_t n = out.ids.size();
  out.type_ids.assign(n, 0);
  out.special_tokens_mask.assign(n, 0);
  out.attention_mask.assign(n, 1);
  return out;
}

std::size_t TokenizerImpl::added_tokens(bool is_pair) const {
  return post_processor ? post_processor->added_tokens(is_pair) : 0;
}

Encoding TokenizerImpl::post_process(Encoding first, std::optional<Encoding> second, bool add_special_tokens) const {
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
  Encoding out = post_processor ? post_processor->process(std::move(first), std::move(second), add_special_tokens, *this)
                                : tokenizer::concatenate(std::move(first), std::move(second));
  if (padding) tokenizer::pad_encoding(out, tokenizer::padded_length(out.size(), *padding), *padding);
  return out;
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
  return impl_->post_process(impl_->encode_sequence(text), std::nullopt, add_special_tokens);
}

Encoding Tokenizer::encode_pair(std::string_view first, std::string_view second, bool add_special_tokens) const {
  return impl_->post_process(impl_->encode_sequence(first), impl_->encode_sequence(second), add_special_tokens);
}

std::vector<Encoding> Tokenizer::encode_batch(std::span<const std::string_view> texts, bool add_special_tokens) const {
  std::vector<Encoding> out;
  out.reserve(texts.size());
  for (const auto text : texts) out.push_back(encode(text, add_special_tokens));
  if (impl_->padding && !impl_->padding->fixed_length) {
    std::size_t longest = 0;
    for (const auto& e : out) longest = std::max(longest, e.size());
    const std::size_t length = tokenizer::padded_length(longest, *impl_->padding);
    for (auto& e : out) tokenizer::pad_encoding(e, length, *impl_->padding);
  }
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

std::string Tokenizer::token_string(const Encoding& encoding, std::size_t i, std::string_view text) const {
  const std::uint32_t id = encoding.ids.at(i);
  const auto [begin, end] = encoding.offsets.at(i);
  const auto* added = impl_->added.find(id);
  if (added != nullptr && !added->normalized && end > begin && end <= text.size()) {
    // Only a match of the token itself; an [UNK] from the model also has an
    // added-token id but spans an unknown word.
    const std::string_view slice = text.substr(begin, end - begin);
    if (slice.find(added->content) != std::string_view::npos) return std::string(slice);
  }
  return std::string(id_to_token(id));
}

std::size_t Tokenizer::vocab_size() const {
  return impl_->model->vocab_size();
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
std::size_t Tokenizer::num_special_tokens_to_add(bool is_pair) const {
  return impl_->added_tokens(is_pair);
}

}  // namespace sieve
