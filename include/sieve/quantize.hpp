#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "sieve/embedder.hpp"

namespace sieve {

// Output precisions of sentence-transformers' quantize_embeddings, plus
// float16 (IEEE half, round to nearest even, as NumPy's astype(float16)).
enum class Precision { kFloat32, kFloat16, kInt8, kUint8, kBinary, kUbinary };
const char* to_string(Precision precision) noexcept;
Precision parse_precision(std::string_view name);

// Per-dimension value ranges for int8 and uint8: the bucket of value x in
// dimension d is floor((x - min[d]) / ((max[d] - min[d]) / 255)), clipped to
// [0, 255] (int8: minus 128). A dimension whose range is empty (min == max)
// uses a step of 1.
struct QuantizationRanges {
  std::vector<float> min;
  std::vector<float> max;
  [[nodiscard]] std::size_t dimension() const noexcept { return min.size(); }
};

// The per-dimension minimum and maximum of row-major [rows, dimension]
// vectors: of a calibration set, or of the vectors being quantized, which is
// what sentence-transformers uses when it is given neither ranges nor a
// calibration set (it warns that fewer than 100 vectors make poor ranges).
QuantizationRanges calibration_ranges(std::span<const float> data, std::size_t rows, std::size_t dimension);
QuantizationRanges calibration_ranges(const Embeddings& embeddings);

// Quantized vectors, row-major, row_bytes bytes a row:
//  float32  4 bytes a value, the floats unchanged
//  float16  2 bytes a value, IEEE half bits (host byte order)
//  int8     1 byte a value, two's complement, in [-128, 127]
//  uint8    1 byte a value, in [0, 255]
//  binary   ceil(dimension / 8) bytes: bits of value > 0, most significant
//           bit first, the last byte zero-padded, each byte then minus 128
//           (stored as int8), as np.packbits(x > 0, axis=-1) - 128
//  ubinary  the same bytes without the offset (uint8)
struct QuantizedEmbeddings {
  Precision precision = Precision::kFloat32;
  std::size_t rows = 0;
  std::size_t dimension = 0;  // of the float vectors that were quantized
  std::size_t row_bytes = 0;
  std::vector<std::uint8_t> data;
  [[nodiscard]] std::span<const std::uint8_t> row(std::size_t i) const {
    return std::span<const std::uint8_t>(data).subspan(i * row_bytes, row_bytes);
  }
  // Number of stored values in a row: dimension, or row_bytes for binary.
  [[nodiscard]] std::size_t values_per_row() const noexcept;
  // Value j of row i as a number (int8 as signed, float16 widened).
  [[nodiscard]] double value(std::size_t i, std::size_t j) const;
};

// Quantizes as sentence-transformers' quantize_embeddings(embeddings,
// precision, ranges). For int8 and uint8 without ranges, the ranges are
// those of `embeddings` itself.
QuantizedEmbeddings quantize(const Embeddings& embeddings, Precision precision,
                             const QuantizationRanges* ranges = nullptr);

std::uint16_t float_to_half(float value) noexcept;
float half_to_float(std::uint16_t bits) noexcept;

}  // namespace sieve
