#pragma once

#include <array>
#include <cstdint>
#include <optional>

// GPT-2's reversible mapping of the 256 byte values onto printable
// characters, shared by the ByteLevel pre-tokenizer, post-processor and
// decoder: printable Latin-1 bytes map to themselves, the others to
// U+0100 onwards in byte order (so a space becomes U+0120 'Ġ').
namespace sieve::tokenizer::byte_level {

// The character standing for `byte`.
char32_t byte_to_char(std::uint8_t byte) noexcept;
// The byte a character stands for, if it is one of the 256.
std::optional<std::uint8_t> char_to_byte(char32_t cp) noexcept;

}  // namespace sieve::tokenizer::byte_level
