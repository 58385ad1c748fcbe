#include "search/vector_codes.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "sieve/error.hpp"

namespace sieve {

const char* to_string(VectorCodes codes) noexcept {
  switch (codes) {
    case VectorCodes::kFloat32: return "float32";
    case VectorCodes::kInt8: return "int8";
    case VectorCodes::kBinary: return "binary";
  }
  return "?";
}

VectorCodes parse_vector_codes(std::string_view name) {
  if (name == "float32") return VectorCodes::kFloat32;
  if (name == "int8") return VectorCodes::kInt8;
  if (name == "binary") return VectorCodes::kBinary;
  throw Error(ErrorCode::kInvalidArgument,
              "unknown vector representation '" + std::string(name) + "' (float32, int8, binary)");
}

std::size_t default_rescore(VectorCodes codes) noexcept {
  switch (codes) {
    case VectorCodes::kFloat32: return 0;
    case VectorCodes::kInt8: return 4;
    case VectorCodes::kBinary: return 10;
  }
  return 0;
}

namespace search {

VectorCodec::VectorCodec(VectorCodes kind, std::size_t dimension, std::vector<float> scales)
    : kind_(kind), dimension_(dimension), scales_(std::move(scales)) {
  if (kind_ == VectorCodes::kInt8) {
    if (scales_.size() != dimension_) {
      throw Error(ErrorCode::kInvalidArgument,
                  "int8 codes need a scale for each of the " + std::to_string(dimension_) + " dimensions");
    }
    weights_.resize(dimension_);
    for (std::size_t i = 0; i < dimension_; ++i) weights_[i] = scales_[i] * scales_[i];
  }
}

std::vector<float> VectorCodec::fit_scales(std::size_t dimension, std::span<const float> vectors,
                                           std::vector<float> scales) {
  if (scales.size() != dimension) scales.assign(dimension, 0.0F);
  for (std::size_t row = 0; row + dimension <= vectors.size(); row += dimension) {
    for (std::size_t i = 0; i < dimension; ++i) {
      // A dimension's largest magnitude, kept as scale * 127.
      scales[i] = std::max(scales[i], std::fabs(vectors[row + i]) / 127.0F);
    }
  }
  return scales;
}

std::size_t VectorCodec::code_bytes() const noexcept {
  switch (kind_) {
    case VectorCodes::kFloat32: return dimension_ * sizeof(float);
    case VectorCodes::kInt8: return dimension_;
    case VectorCodes::kBinary: return (dimension_ + 7) / 8;
  }
  return 0;
}

void VectorCodec::encode(std::span<const float> vector, std::uint8_t* code) const {
  switch (kind_) {
    case VectorCodes::kFloat32: std::memcpy(code, vector.data(), dimension_ * sizeof(float)); return;
    case VectorCodes::kInt8:
      for (std::size_t i = 0; i < dimension_; ++i) {
        const float scaled = scales_[i] > 0 ? vector[i] / scales_[i] : 0.0F;
        const long rounded = std::lround(std::clamp(scaled, -127.0F, 127.0F));
        code[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(rounded));
      }
      return;
    case VectorCodes::kBinary:
      std::memset(code, 0, code_bytes());
      for (std::size_t i = 0; i < dimension_; ++i) {
        if (vector[i] > 0) code[i / 8] = static_cast<std::uint8_t>(code[i / 8] | (1U << (i % 8)));
      }
      return;
  }
}

std::vector<float> VectorCodec::query_form(std::span<const float> query) const {
  switch (kind_) {
    case VectorCodes::kFloat32: return {query.begin(), query.end()};
    case VectorCodes::kInt8: {
      std::vector<float> form(dimension_);
      for (std::size_t i = 0; i < dimension_; ++i) form[i] = query[i] * scales_[i];
      return form;
    }
    case VectorCodes::kBinary: {
      // The sign vector over sqrt(dimension) is a unit vector: its inner product with a normalized query is a cosine.
      const float unit = 1.0F / std::sqrt(static_cast<float>(dimension_));
      std::vector<float> form(code_bytes() * 256, 0.0F);
      for (std::size_t byte = 0; byte < code_bytes(); ++byte) {
        for (unsigned value = 0; value < 256; ++value) {
          float sum = 0;
          for (std::size_t bit = 0; bit < 8 && byte * 8 + bit < dimension_; ++bit) {
            const float q = query[byte * 8 + bit] * unit;
            sum += ((value >> bit) & 1U) != 0 ? q : -q;
          }
          form[byte * 256 + value] = sum;
        }
      }
      return form;
    }
  }
  return {};
}

float VectorCodec::distance(const std::uint8_t* a, const std::uint8_t* b) const noexcept {
  switch (kind_) {
    case VectorCodes::kFloat32: {
      float sum = 0;
      for (std::size_t i = 0; i < dimension_; ++i) {
        float x = 0;
        float y = 0;
        std::memcpy(&x, a + i * sizeof(float), sizeof(float));
        std::memcpy(&y, b + i * sizeof(float), sizeof(float));
        sum += x * y;
      }
      return 1.0F - sum;
    }
    case VectorCodes::kInt8: {
      float sum = 0;
      for (std::size_t i = 0; i < dimension_; ++i) {
        sum += weights_[i] * static_cast<float>(static_cast<std::int8_t>(a[i])) *
               static_cast<float>(static_cast<std::int8_t>(b[i]));
      }
      return 1.0F - sum;
    }
    case VectorCodes::kBinary: {
      std::size_t differ = 0;
      const std::size_t bytes = code_bytes();
      std::size_t i = 0;
      for (; i + 8 <= bytes; i += 8) {
        std::uint64_t x = 0;
        std::uint64_t y = 0;
        std::memcpy(&x, a + i, 8);
        std::memcpy(&y, b + i, 8);
        differ += static_cast<std::size_t>(std::popcount(x ^ y));
      }
      for (; i < bytes; ++i) differ += static_cast<std::size_t>(std::popcount(static_cast<unsigned>(a[i] ^ b[i])));
      // Sign vectors agreeing in d - h of d places have the cosine (d - 2h) / d.
      return 2.0F * static_cast<float>(differ) / static_cast<float>(dimension_);
    }
  }
  return 0;
}

float VectorCodec::distance_to_query(const float* query, const std::uint8_t* code) const noexcept {
  switch (kind_) {
    case VectorCodes::kFloat32: return distance(reinterpret_cast<const std::uint8_t*>(query), code);
    case VectorCodes::kInt8: {
      float sum = 0;
      for (std::size_t i = 0; i < dimension_; ++i)
        sum += query[i] * static_cast<float>(static_cast<std::int8_t>(code[i]));
      return 1.0F - sum;
    }
    case VectorCodes::kBinary: {
      float sum = 0;
      const std::size_t bytes = code_bytes();
      for (std::size_t i = 0; i < bytes; ++i) sum += query[i * 256 + code[i]];
      return 1.0F - sum;
    }
  }
  return 0;
}

std::string VectorCodec::scales_text() const {
  std::string text;
  char number[32];
  for (const float scale : scales_) {
    std::snprintf(number, sizeof number, "%.9g", static_cast<double>(scale));
    if (!text.empty()) text += ' ';
    text += number;
  }
  return text;
}

std::vector<float> VectorCodec::parse_scales(std::string_view text, std::size_t dimension) {
  std::vector<float> scales;
  const std::string copy(text);
  const char* at = copy.c_str();
  while (*at != '\0') {
    char* end = nullptr;
    const float value = std::strtof(at, &end);
    if (end == at || !(value >= 0) || !std::isfinite(value)) break;
    scales.push_back(value);
    at = end;
    while (*at == ' ') ++at;
  }
  if (scales.size() != dimension || *at != '\0') {
    throw Error(ErrorCode::kParse, "the index's int8 scales are damaged: " + std::to_string(dimension) +
                                       " numbers of at least 0 expected");
  }
  return scales;
}

}  // namespace search
}  // namespace sieve
