#include "cli/io.hpp"

#include <charconv>
#include <cmath>
#include <cstring>

#include "sieve/error.hpp"

namespace sieve::cli {

void for_each_line_chunk(std::istream& in, std::size_t chunk,
                         const std::function<void(std::vector<std::string>&, std::size_t first_line)>& consume) {
  std::vector<std::string> lines;
  std::size_t first = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    line.clear();
    if (lines.size() == chunk) {
      consume(lines, first);
      first += lines.size();
      lines.clear();
    }
  }
  if (in.bad()) throw Error(ErrorCode::kRuntime, "error reading standard input");
  if (!lines.empty()) consume(lines, first);
}

void for_each_input_chunk(const std::vector<std::string>& arguments,
                          const std::function<void(std::vector<std::string>&, std::size_t first_line)>& consume) {
  if (arguments.empty()) {
    for_each_line_chunk(std::cin, kLinesPerChunk, consume);
    return;
  }
  std::vector<std::string> texts = arguments;
  consume(texts, 0);
}

void flush_stdout() {
  if (std::fflush(stdout) != 0) throw Error(ErrorCode::kRuntime, "error writing standard output");
}

void write_stdout(std::string_view data) {
  if (std::fwrite(data.data(), 1, data.size(), stdout) != data.size()) {
    throw Error(ErrorCode::kRuntime, "error writing standard output");
  }
}

void write_npy(std::FILE* out, std::string_view descr, std::span<const std::uint8_t> data, std::size_t rows,
               std::size_t cols) {
  std::string header = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': (" +
                       std::to_string(rows) + ", " + std::to_string(cols) + "), }";
  // Magic (6) + version (2) + length (2) + header, padded with spaces to a
  // multiple of 64 and ended by a newline, as the format requires.
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::string prefix("\x93NUMPY\x01\x00", 8);
  const auto length = static_cast<std::uint16_t>(header.size());
  prefix.push_back(static_cast<char>(length & 0xFF));
  prefix.push_back(static_cast<char>(length >> 8));
  if (std::fwrite(prefix.data(), 1, prefix.size(), out) != prefix.size() ||
      std::fwrite(header.data(), 1, header.size(), out) != header.size() ||
      std::fwrite(data.data(), 1, data.size(), out) != data.size()) {
    throw Error(ErrorCode::kRuntime, "error writing the .npy output");
  }
}

void write_npy(std::FILE* out, std::span<const float> data, std::size_t rows, std::size_t cols) {
  write_npy(out, "<f4", {reinterpret_cast<const std::uint8_t*>(data.data()), data.size() * sizeof(float)}, rows, cols);
}

}  // namespace sieve::cli
