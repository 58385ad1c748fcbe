#include "sieve/quantize.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "sieve/error.hpp"

namespace sieve {

const char* to_string(Precision precision) noexcept {
  switch (precision) {
    case Precision::kFloat32: return "float32";
    case Precision::kFloat16: return "float16";
    case Precision::kInt8: return "int8";
    case Precision::kUint8: return "uint8";
    case Precision::kBinary: return "binary";
    case Precision::kUbinary: return "ubinary";
  }
  return "float32";
}

Precision parse_precision(std::string_view name) {
  if (name == "float32") return Precision::kFloat32;
  if (name == "float16") return Precision::kFloat16;
  if (name == "int8") return Precision::kInt8;
  if (name == "uint8") return Precision::kUint8;
  if (name == "binary") return Precision::kBinary;
  if (name == "ubinary") return Precision::kUbinary;
  throw Error(ErrorCode::kInvalidArgument, "unknown precision \"" + std::string(name) +
                                               "\" (expected float32, float16, int8, uint8, binary or ubinary)");
}

QuantizationRanges calibration_ranges(std::span<const float> data, std::size_t rows, std::size_t dimension) {
  if (rows == 0 || dimension == 0) {
    throw Error(ErrorCode::kInvalidArgument, "calibration needs at least one vector of at least one dimension");
  }
  if (data.size() != rows * dimension) {
    throw Error(ErrorCode::kInvalidArgument, "calibration data has " + std::to_string(data.size()) +
                                                 " values, not rows x dimension = " + std::to_string(rows * dimension));
  }
  QuantizationRanges ranges;
  ranges.min.assign(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(dimension));
  ranges.max = ranges.min;
  for (std::size_t r = 1; r < rows; ++r) {
    const float* row = data.data() + r * dimension;
    for (std::size_t d = 0; d < dimension; ++d) {
      ranges.min[d] = std::min(ranges.min[d], row[d]);
      ranges.max[d] = std::max(ranges.max[d], row[d]);
    }
  }
  return ranges;
}

QuantizationRanges calibration_ranges(const Embeddings& embeddings) {
  return calibration_ranges(embeddings.data, embeddings.rows, embeddings.dimension);
}

std::size_t QuantizedEmbeddings::values_per_row() const noexcept {
  switch (precision) {
    case Precision::kBinary:
    case Precision::kUbinary: return row_bytes;
    default: return dimension;
  }
}

double QuantizedEmbeddings::value(std::size_t i, std::size_t j) const {
  const std::uint8_t* p = data.data() + i * row_bytes;
  switch (precision) {
    case Precision::kFloat32: {
      float f = 0;
      std::memcpy(&f, p + j * 4, 4);
      return f;
    }
    case Precision::kFloat16: {
      std::uint16_t h = 0;
      std::memcpy(&h, p + j * 2, 2);
      return half_to_float(h);
    }
    case Precision::kInt8:
    case Precision::kBinary: return static_cast<std::int8_t>(p[j]);
    case Precision::kUint8:
    case Precision::kUbinary: return p[j];
  }
  return 0;
}

std::uint16_t float_to_half(float value) noexcept {
  const std::uint32_t f = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t sign = (f >> 16) & 0x8000U;
  const std::uint32_t abs = f & 0x7FFFFFFFU;
  if (abs >= 0x7F800000U) {  // infinity or NaN (kept quiet, payload's top bits kept)
    return static_cast<std::uint16_t>(sign | 0x7C00U | (abs > 0x7F800000U ? 0x200U | ((abs >> 13) & 0x3FFU) : 0));
  }
  if (abs >= 0x477FF000U) return static_cast<std::uint16_t>(sign | 0x7C00U);  // rounds past 65504: infinity
  if (abs < 0x38800000U) {
    // Below the smallest normal half (2^-14): a subnormal half, in units of
    // 2^-24, rounded to nearest even.
    if (abs < 0x33000000U) return static_cast<std::uint16_t>(sign);  // at most 2^-25: rounds to zero
    const std::uint32_t exponent = abs >> 23;
    const std::uint32_t mantissa = (abs & 0x7FFFFFU) | 0x800000U;
    const std::uint32_t shift = 126U - exponent;  // 14..24: value = mantissa * 2^(exponent-150), unit 2^-24
    std::uint32_t half = mantissa >> shift;
    const std::uint32_t rest = mantissa & ((1U << shift) - 1U);
    const std::uint32_t halfway = 1U << (shift - 1U);
    if (rest > halfway || (rest == halfway && (half & 1U) != 0)) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  // Normal: rebias the exponent (127 -> 15) and round the mantissa's 13 low bits to nearest even;
  // a carry into the exponent is the correct result.
  std::uint32_t half = ((abs - 0x38000000U) >> 13);
  const std::uint32_t rest = abs & 0x1FFFU;
  if (rest > 0x1000U || (rest == 0x1000U && (half & 1U) != 0)) ++half;
  return static_cast<std::uint16_t>(sign | half);
}

float half_to_float(std::uint16_t bits) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000U) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1FU;
  const std::uint32_t mantissa = bits & 0x3FFU;
  if (exponent == 0) {
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign != 0 ? -magnitude : magnitude;
  }
  if (exponent == 31) return std::bit_cast<float>(sign | 0x7F800000U | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112U) << 23) | (mantissa << 13));
}

QuantizedEmbeddings quantize(const Embeddings& embeddings, Precision precision, const QuantizationRanges* ranges) {
  const std::size_t rows = embeddings.rows;
  const std::size_t dim = embeddings.dimension;
  if (embeddings.data.size() != rows * dim) {
    throw Error(ErrorCode::kInvalidArgument, "embeddings hold " + std::to_string(embeddings.data.size()) +
                                                 " values, not rows x dimension = " + std::to_string(rows * dim));
  }
  QuantizedEmbeddings out;
  out.precision = precision;
  out.rows = rows;
  out.dimension = dim;
  switch (precision) {
    case Precision::kFloat32: out.row_bytes = dim * 4; break;
    case Precision::kFloat16: out.row_bytes = dim * 2; break;
    case Precision::kInt8:
    case Precision::kUint8: out.row_bytes = dim; break;
    case Precision::kBinary:
    case Precision::kUbinary: out.row_bytes = (dim + 7) / 8; break;
  }
  out.data.assign(rows * out.row_bytes, 0);
  const float* in = embeddings.data.data();
  switch (precision) {
    case Precision::kFloat32:
      if (!out.data.empty()) std::memcpy(out.data.data(), in, out.data.size());
      break;
    case Precision::kFloat16:
      for (std::size_t k = 0; k < rows * dim; ++k) {
        const std::uint16_t h = float_to_half(in[k]);
        std::memcpy(out.data.data() + k * 2, &h, 2);
      }
      break;
    case Precision::kInt8:
    case Precision::kUint8: {
      if (rows == 0) break;
      QuantizationRanges own;
      if (ranges == nullptr) {
        own = calibration_ranges(embeddings);
        ranges = &own;
      }
      if (ranges->min.size() != dim || ranges->max.size() != dim) {
        throw Error(ErrorCode::kInvalidArgument, "quantization ranges have " + std::to_string(ranges->min.size()) +
                                                     " dimensions, the embeddings " + std::to_string(dim));
      }
      // float32 arithmetic throughout, in sentence-transformers' order, so
      // that values on a bucket edge land where NumPy puts them.
      std::vector<float> steps(dim);
      for (std::size_t d = 0; d < dim; ++d) {
        const float step = (ranges->max[d] - ranges->min[d]) / 255.0F;
        steps[d] = step == 0.0F ? 1.0F : step;
      }
      const bool is_signed = precision == Precision::kInt8;
      for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t d = 0; d < dim; ++d) {
          float q = std::floor((in[r * dim + d] - ranges->min[d]) / steps[d]);
          q = std::isnan(q) ? 0.0F : std::clamp(q, 0.0F, 255.0F);
          const int bucket = static_cast<int>(q);
          out.data[r * dim + d] = static_cast<std::uint8_t>(is_signed ? (bucket - 128) & 0xFF : bucket);
        }
      }
      break;
    }
    case Precision::kBinary:
    case Precision::kUbinary: {
      const int offset = precision == Precision::kBinary ? 128 : 0;
      for (std::size_t r = 0; r < rows; ++r) {
        std::uint8_t* target = out.data.data() + r * out.row_bytes;
        for (std::size_t d = 0; d < dim; ++d) {
          if (in[r * dim + d] > 0.0F) target[d / 8] |= static_cast<std::uint8_t>(0x80U >> (d % 8));
        }
        for (std::size_t b = 0; b < out.row_bytes; ++b) {
          target[b] = static_cast<std::uint8_t>((static_cast<int>(target[b]) - offset) & 0xFF);
        }
      }
      break;
    }
  }
  return out;
}

}  // namespace sieve
