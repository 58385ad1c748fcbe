#pragma once

#include <cstdio>
#include <functional>
#include <istream>
#include <span>
#include <string>
#include <vector>

namespace sieve::cli {

// Reads lines from `in` in chunks of `chunk` lines, calling `consume` with
// each chunk and the number of lines read before it. A trailing '\r' (CRLF
// files) is removed; nothing else is touched.
void for_each_line_chunk(std::istream& in, std::size_t chunk,
                         const std::function<void(std::vector<std::string>&, std::size_t first_line)>& consume);

// Shortest decimal form that reads back to the same float.
void append_float(std::string& out, float value);
void append_json_string(std::string& out, std::string_view text);
template <typename T>
void append_json_array(std::string& out, std::span<const T> values) {
  out.push_back('[');
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out.push_back(',');
    if constexpr (std::is_floating_point_v<T>) {
      append_float(out, values[i]);
    } else {
      out += std::to_string(values[i]);
    }
  }
  out.push_back(']');
}

void write_stdout(std::string_view data);
// A float32 matrix in NumPy's .npy format (version 1.0, little-endian).
void write_npy(std::FILE* out, std::span<const float> data, std::size_t rows, std::size_t cols);

}  // namespace sieve::cli
