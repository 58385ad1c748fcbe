#include <cstdlib>
#include <cstring>
#include <span>
#include <string_view>

#include "capi/handles.hpp"
#include "capi/status.hpp"
#include "sieve/error.hpp"

using sieve::capi::guarded;
using sieve::capi::require;

namespace {

const sieve::Tokenizer& tokenizer_of(const sieve_tokenizer* tokenizer, const char* function) {
  require(tokenizer != nullptr && tokenizer->tokenizer != nullptr, function, "tokenizer is NULL");
  return *tokenizer->tokenizer;
}

template <class T>
const T* data_or_null(const std::vector<T>& values) {
  return values.empty() ? nullptr : values.data();
}

}  // namespace

extern "C" {

sieve_status* sieve_tokenizer_load(const char* path, sieve_tokenizer** out) {
  static constexpr const char* kFunction = "sieve_tokenizer_load";
  return guarded(kFunction, [&] {
    require(out != nullptr, kFunction, "out is NULL");
    *out = nullptr;
    require(path != nullptr, kFunction, "path is NULL");
    auto tokenizer = std::make_unique<sieve_tokenizer>();
    tokenizer->owned = std::make_unique<sieve::Tokenizer>(sieve::Tokenizer::from_file(path));
    tokenizer->tokenizer = tokenizer->owned.get();
    *out = tokenizer.release();
  });
}

void sieve_tokenizer_destroy(sieve_tokenizer* tokenizer) {
  // A model's tokenizer is borrowed (owned is empty) and lives in the model.
  if (tokenizer != nullptr && tokenizer->owned) delete tokenizer;
}

sieve_status* sieve_tokenize(const sieve_tokenizer* tokenizer, sieve_text text, const sieve_text* pair,
                             int32_t add_special_tokens, sieve_encoding** out) {
  static constexpr const char* kFunction = "sieve_tokenize";
  return guarded(kFunction, [&] {
    require(out != nullptr, kFunction, "out is NULL");
    *out = nullptr;
    const sieve::Tokenizer& t = tokenizer_of(tokenizer, kFunction);
    const std::string_view first = sieve::capi::text_view(text, kFunction, "text");
    auto encoding = std::make_unique<sieve_encoding>();
    encoding->encoding = pair == nullptr ? t.encode(first, add_special_tokens != 0)
                                         : t.encode_pair(first, sieve::capi::text_view(*pair, kFunction, "pair"),
                                                         add_special_tokens != 0);
    encoding->offsets.reserve(2 * encoding->encoding.offsets.size());
    for (const auto& [begin, end] : encoding->encoding.offsets) {
      encoding->offsets.push_back(begin);
      encoding->offsets.push_back(end);
    }
    *out = encoding.release();
  });
}

void sieve_encoding_destroy(sieve_encoding* encoding) {
  delete encoding;
}

size_t sieve_encoding_size(const sieve_encoding* encoding) {
  return encoding ? encoding->encoding.size() : 0;
}

const uint32_t* sieve_encoding_ids(const sieve_encoding* encoding) {
  return encoding ? data_or_null(encoding->encoding.ids) : nullptr;
}

const uint32_t* sieve_encoding_type_ids(const sieve_encoding* encoding) {
  return encoding ? data_or_null(encoding->encoding.type_ids) : nullptr;
}

const uint8_t* sieve_encoding_attention_mask(const sieve_encoding* encoding) {
  return encoding ? data_or_null(encoding->encoding.attention_mask) : nullptr;
}

const uint8_t* sieve_encoding_special_tokens_mask(const sieve_encoding* encoding) {
  return encoding ? data_or_null(encoding->encoding.special_tokens_mask) : nullptr;
}

const uint32_t* sieve_encoding_offsets(const sieve_encoding* encoding) {
  return encoding ? data_or_null(encoding->offsets) : nullptr;
}

sieve_status* sieve_tokenizer_id_to_token(const sieve_tokenizer* tokenizer, uint32_t id, sieve_text* out) {
  static constexpr const char* kFunction = "sieve_tokenizer_id_to_token";
  return guarded(kFunction, [&] {
    const sieve::Tokenizer& t = tokenizer_of(tokenizer, kFunction);
    require(out != nullptr, kFunction, "out is NULL");
    const std::string_view token = t.id_to_token(id);
    // Added tokens may lie beyond the model's vocabulary; only an id that
    // names nothing is an error.
    if (token.empty() && id >= t.vocab_size()) {
      throw sieve::Error(sieve::ErrorCode::kInvalidArgument,
                         std::string(kFunction) + ": id " + std::to_string(id) + " is not in the vocabulary");
    }
    *out = sieve_text{token.data(), token.size()};
  });
}

size_t sieve_tokenizer_vocab_size(const sieve_tokenizer* tokenizer) {
  return tokenizer != nullptr && tokenizer->tokenizer != nullptr ? tokenizer->tokenizer->vocab_size() : 0;
}

sieve_status* sieve_tokenizer_decode(const sieve_tokenizer* tokenizer, const uint32_t* ids, size_t count,
                                     int32_t skip_special_tokens, char** out, size_t* out_size) {
  static constexpr const char* kFunction = "sieve_tokenizer_decode";
  return guarded(kFunction, [&] {
    require(out != nullptr, kFunction, "out is NULL");
    *out = nullptr;
    const sieve::Tokenizer& t = tokenizer_of(tokenizer, kFunction);
    require(ids != nullptr || count == 0, kFunction, "ids is NULL");
    const std::string text = t.decode(std::span<const std::uint32_t>(ids, count), skip_special_tokens != 0);
    // malloc, so that sieve_string_free is free() whatever allocator C++ uses.
    char* copy = static_cast<char*>(std::malloc(text.size() + 1));
    if (copy == nullptr) throw std::bad_alloc();
    std::memcpy(copy, text.data(), text.size());
    copy[text.size()] = '\0';
    *out = copy;
    if (out_size != nullptr) *out_size = text.size();
  });
}

void sieve_string_free(char* string) {
  std::free(string);
}  // NOLINT(cppcoreguidelines-no-malloc)

}  // extern "C"
