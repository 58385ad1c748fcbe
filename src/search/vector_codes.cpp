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

std::size_t default_rescore(VectorCodes codes, bool prefix) noexcept {
  switch (codes) {
    case VectorCodes::kFloat32: return prefix ? 4 : 0;
    case VectorCodes::kInt8: return 4;
    case VectorCodes::kBinary: return 10;
  }
  return 0;
}

namespace search {

namespace {

// The first `prefix` values of `vector` normalized (into `buffer`), or `vector` itself when it has no more.
std::span<const float> normalized_prefix(std::span<const float> vector, std::size_t prefix,
                                         std::vector<float>& buffer) {
  if (prefix >= vector.size()) return vector;
  double norm = 0;
  for (std::size_t i = 0; i < prefix; ++i) norm += static_cast<double>(vector[i]) * vector[i];
  const float scale = norm > 0 ? static_cast<float>(1.0 / std::sqrt(norm)) : 0.0F;
  buffer.resize(prefix);
  for (std::size_t i = 0; i < prefix; ++i) buffer[i] = vector[i] * scale;
  return buffer;
}

}  // namespace

VectorCodec::VectorCodec(VectorCodes kind, std::size_t dimension, std::vector<float> scales, std::size_t prefix)
    : kind_(kind),
      input_(dimension),
      dimension_(prefix == 0 ? dimension : std::min(prefix, dimension)),
      scales_(std::move(scales)) {
  if (kind_ == VectorCodes::kInt8) {
    if (scales_.size() != dimension_) {
      throw Error(ErrorCode::kInvalidArgument,
                  "int8 codes need a scale for each of the " + std::to_string(dimension_) + " dimensions");
    }
    weights_.resize(dimension_);
    for (std::size_t i = 0; i < dimension_; ++i) weights_[i] = scales_[i] * scales_[i];
  }
}

std::vector<float> VectorCodec::fit_scales(std::size_t dimension, std::size_t prefix, std::span<const float> vectors,
                                           std::vector<float> scales) {
  const std::size_t coded = prefix == 0 ? dimension : std::min(prefix, dimension);
  if (scales.size() != coded) scales.assign(coded, 0.0F);
  std::vector<float> buffer;
  for (std::size_t row = 0; row + dimension <= vectors.size(); row += dimension) {
    const auto values = normalized_prefix(vectors.subspan(row, dimension), coded, buffer);
    for (std::size_t i = 0; i < coded; ++i) {
      // A dimension's largest magnitude, kept as scale * 127.
      scales[i] = std::max(scales[i], std::fabs(values[i]) / 127.0F);
    }
  }
  return scales;
}

std::span<const float> VectorCodec::coded(std::span<const float> vector, std::vector<float>& buffer) const {
  return normalized_prefix(vector, dimension_, buffer);
}

std::size_t VectorCodec::code_bytes() const noexcept {
  switch (kind_) {
    case VectorCodes::kFloat32: return dimension_ * sizeof(float);
    case VectorCodes::kInt8: return dimension_;
    case VectorCodes::kBinary: return (dimension_ + 7) / 8;
  }
  return 0;
}

void VectorCodec::encode(std::span<const float> whole, std::uint8_t* code) const {
  std::vector<float> buffer;
  const auto vector = coded(whole, buffer);
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

std::vector<float> VectorCodec::query_form(std::span<const float> whole) const {
  std::vector<float> buffer;
  const auto query = coded(whole, buffer);
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
      const float* weights = weights_.data();
      const auto* x = reinterpret_cast<const std::int8_t*>(a);
      const auto* y = reinterpret_cast<const std::int8_t*>(b);
#pragma omp simd reduction(+ : sum)
      for (std::size_t i = 0; i < dimension_; ++i) {
        sum += weights[i] * static_cast<float>(x[i]) * static_cast<float>(y[i]);
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
      const auto* x = reinterpret_cast<const std::int8_t*>(code);
#pragma omp simd reduction(+ : sum)
      for (std::size_t i = 0; i < dimension_; ++i) sum += query[i] * static_cast<float>(x[i]);
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
