#pragma once

// Turning the bytes of a text file into UTF-8 when nothing says what they are.

#include <string>
#include <string_view>

namespace sieve::search::text {

struct Decoded {
  std::string text;     // valid UTF-8, without a byte order mark
  std::string warning;  // why the encoding was guessed; "" when it was not
};

// UTF-8 (with or without a byte order mark) is kept as it is; UTF-16 with a byte order mark is converted; any
// other bytes are read as Windows-1252 (which Latin-1 text also is, as browsers read it), with a warning.
Decoded decode_text(std::string_view bytes);

// Each byte as the Windows-1252 character it stands for; the five bytes the code page leaves undefined become
// the C1 control characters of the same value, as in the WHATWG Encoding Standard.
std::string windows1252_to_utf8(std::string_view bytes);

// Whether the first bytes of a file are not text: a NUL byte where no UTF-16 byte order mark explains it (as
// git and file(1) decide), or more than one byte in ten a control character. A file whose name says it is text
// (`named_text`) may hold a stray NUL: it is binary when more than one byte in twenty is a NUL or another
// control character (compressed or machine data has about one in ten).
bool looks_binary(std::string_view head, bool named_text = false);

}  // namespace sieve::search::text
