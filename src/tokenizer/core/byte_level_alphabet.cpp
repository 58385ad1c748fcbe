#include "tokenizer/core/byte_level_alphabet.hpp"

namespace sieve::tokenizer::byte_level {
namespace {

constexpr bool is_printable_latin1(unsigned byte) {
  return (byte >= '!' && byte <= '~') || (byte >= 0xA1 && byte <= 0xAC) || (byte >= 0xAE && byte <= 0xFF);
}

constexpr std::array<char32_t, 256> build_table() {
  std::array<char32_t, 256> table{};
  char32_t next = 0x100;
  for (unsigned byte = 0; byte < 256; ++byte) table[byte] = is_printable_latin1(byte) ? byte : next++;
  return table;
}

constexpr std::array<char32_t, 256> kByteToChar = build_table();

// Remapped bytes in the order of their characters U+0100, U+0101, ...
constexpr std::array<std::uint8_t, 68> build_remapped() {
  std::array<std::uint8_t, 68> remapped{};
  for (unsigned byte = 0; byte < 256; ++byte) {
    if (!is_printable_latin1(byte)) remapped[kByteToChar[byte] - 0x100] = static_cast<std::uint8_t>(byte);
  }
  return remapped;
}

constexpr std::array<std::uint8_t, 68> kRemapped = build_remapped();

}  // namespace

char32_t byte_to_char(std::uint8_t byte) noexcept {
  return kByteToChar[byte];
}

std::optional<std::uint8_t> char_to_byte(char32_t cp) noexcept {
  if (cp < 0x100) {
    if (is_printable_latin1(cp)) return static_cast<std::uint8_t>(cp);
    return std::nullopt;
  }
  if (cp - 0x100 < kRemapped.size()) return kRemapped[cp - 0x100];
  return std::nullopt;
}

}  // namespace sieve::tokenizer::byte_level
