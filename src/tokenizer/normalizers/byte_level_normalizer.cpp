#include "tokenizer/normalizers/byte_level_normalizer.hpp"

#include "tokenizer/core/byte_level_alphabet.hpp"

namespace sieve::tokenizer {

std::unique_ptr<Normalizer> ByteLevelNormalizer::from_json(const JsonView&) {
  return std::make_unique<ByteLevelNormalizer>();
}

void ByteLevelNormalizer::normalize(NormalizedString& text) const {
  const std::string& s = text.get();
  NormalizedString::Builder builder(text);
  text.for_each_char([&](char32_t, std::size_t begin, std::size_t end, Offsets original) {
    for (std::size_t i = begin; i < end; ++i) {
      builder.emit(byte_level::byte_to_char(static_cast<std::uint8_t>(s[i])), original);
    }
  });
  text = std::move(builder).finish();
}

}  // namespace sieve::tokenizer
