#pragma once

#include "sieve/json_text.hpp"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <istream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sieve::cli {

// Reads lines from `in` in chunks of `chunk` lines, calling `consume` with
// each chunk and the number of lines read before it. A trailing '\r' (CRLF
// files) is removed; nothing else is touched.
// Lines of standard input are processed in chunks of this many: a long
// stream needs bounded memory, and each chunk is large enough for
// length-ordered batching to pay off.
inline constexpr std::size_t kLinesPerChunk = 4096;
void for_each_line_chunk(std::istream& in, std::size_t chunk,
                         const std::function<void(std::vector<std::string>&, std::size_t first_line)>& consume);
// The texts given as arguments as one chunk, or without them the lines of
// standard input in chunks of kLinesPerChunk.
void for_each_input_chunk(const std::vector<std::string>& arguments,
                          const std::function<void(std::vector<std::string>&, std::size_t first_line)>& consume);
// Flushes standard output; a failure (a full disk, a closed pipe) is an Error.
void flush_stdout();

// JSON text helpers, shared with the server.
using sieve::append_float;
using sieve::append_json_array;
using sieve::append_json_string;

void write_stdout(std::string_view data);
// A row-major matrix in NumPy's .npy format (version 1.0): `descr` is NumPy's
// type string ("<f4", "|i1", ...) and `data` the matrix's bytes.
void write_npy(std::FILE* out, std::string_view descr, std::span<const std::uint8_t> data, std::size_t rows,
               std::size_t cols);
// A float32 matrix (little-endian).
void write_npy(std::FILE* out, std::span<const float> data, std::size_t rows, std::size_t cols);

}  // namespace sieve::cli
