#include "model/safetensors.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <bit>
#include <cstring>
#include <fstream>

#include "sieve/error.hpp"

namespace sieve::model {
namespace {

// Beyond this, a header is not one a real file has (safetensors itself caps it at 100 MB).
constexpr std::uint64_t kMaxHeader = 100U << 20U;

std::size_t dtype_size(const std::string& dtype) {
  if (dtype == "F32") return 4;
  if (dtype == "F16" || dtype == "BF16") return 2;
  if (dtype == "F64") return 8;
  return 0;
}

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000U) << 16U;
  std::uint32_t exponent = (h >> 10U) & 0x1FU;
  std::uint32_t mantissa = h & 0x3FFU;
  std::uint32_t bits = 0;
  if (exponent == 0x1FU) {
    bits = sign | 0x7F800000U | (mantissa << 13U);  // infinity or NaN
  } else if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else {  // subnormal: shift until the leading one is the implicit bit
      exponent = 113;
      while ((mantissa & 0x400U) == 0) {
        mantissa <<= 1U;
        --exponent;
      }
      bits = sign | (exponent << 23U) | ((mantissa & 0x3FFU) << 13U);
    }
  } else {
    bits = sign | ((exponent + 112U) << 23U) | (mantissa << 13U);
  }
  return std::bit_cast<float>(bits);
}

}  // namespace

SafetensorsFile::SafetensorsFile(std::filesystem::path file) : file_(std::move(file)) {
  const std::string where = file_.string() + ": ";
  std::ifstream in(file_, std::ios::binary);
  if (!in) throw Error(ErrorCode::kNotFound, where + "cannot open");
  std::array<unsigned char, 8> length_bytes{};
  if (!in.read(reinterpret_cast<char*>(length_bytes.data()), 8)) {
    throw Error(ErrorCode::kParse, where + "not a safetensors file (shorter than its 8-byte header length)");
  }
  std::uint64_t header_length = 0;
  for (std::size_t i = 0; i < 8; ++i) header_length |= static_cast<std::uint64_t>(length_bytes[i]) << (8U * i);
  const std::uint64_t file_size = std::filesystem::file_size(file_);
  if (header_length > kMaxHeader || header_length > file_size - 8) {
    throw Error(ErrorCode::kParse, where + "not a safetensors file (header length " + std::to_string(header_length) +
                                       " does not fit the file's " + std::to_string(file_size) + " bytes)");
  }
  std::string header(header_length, '\0');
  in.read(header.data(), static_cast<std::streamsize>(header_length));
  data_offset_ = 8 + header_length;
  const std::uint64_t data_size = file_size - data_offset_;
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(header);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(ErrorCode::kParse, where + "the safetensors header is not JSON (byte " + std::to_string(e.byte) + ")");
  }
  if (!doc.is_object()) throw Error(ErrorCode::kParse, where + "the safetensors header is not a JSON object");
  for (const auto& [name, value] : doc.items()) {
    if (name == "__metadata__") continue;
    const std::string at = where + "tensor \"" + name + "\": ";
    if (!value.is_object() || !value.contains("dtype") || !value["dtype"].is_string() || !value.contains("shape") ||
        !value["shape"].is_array() || !value.contains("data_offsets") || !value["data_offsets"].is_array() ||
        value["data_offsets"].size() != 2) {
      throw Error(ErrorCode::kParse, at + "expected {\"dtype\", \"shape\", \"data_offsets\": [begin, end]}");
    }
    Entry entry;
    entry.dtype = value["dtype"].get<std::string>();
    std::uint64_t count = 1;
    for (const auto& d : value["shape"]) {
      if (!d.is_number_unsigned()) throw Error(ErrorCode::kParse, at + "a dimension is not a non-negative integer");
      entry.shape.push_back(d.get<std::int64_t>());
      count *= d.get<std::uint64_t>();
      if (count > data_size) throw Error(ErrorCode::kParse, at + "its shape is larger than the file");
    }
    for (const auto& o : value["data_offsets"]) {
      if (!o.is_number_unsigned()) throw Error(ErrorCode::kParse, at + "data_offsets are not non-negative integers");
    }
    entry.begin = value["data_offsets"][0].get<std::uint64_t>();
    entry.end = value["data_offsets"][1].get<std::uint64_t>();
    if (entry.begin > entry.end || entry.end > data_size) {
      throw Error(ErrorCode::kParse, at + "data_offsets [" + std::to_string(entry.begin) + ", " +
                                         std::to_string(entry.end) + "] lie outside the file's " +
                                         std::to_string(data_size) + " data bytes");
    }
    const std::size_t size = dtype_size(entry.dtype);
    if (size != 0 && count * size != entry.end - entry.begin) {
      throw Error(ErrorCode::kParse, at + std::to_string(entry.end - entry.begin) + " bytes for " +
                                         std::to_string(count) + " values of " + entry.dtype);
    }
    entries_.emplace(name, std::move(entry));
  }
}

bool SafetensorsFile::contains(std::string_view name) const {
  return entries_.find(name) != entries_.end();
}

std::vector<std::string> SafetensorsFile::names() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const auto& [name, entry] : entries_) out.push_back(name);
  return out;
}

FloatTensor SafetensorsFile::read(std::string_view name) const {
  const auto it = entries_.find(name);
  if (it == entries_.end()) {
    throw Error(ErrorCode::kParse, file_.string() + ": no tensor \"" + std::string(name) + "\"");
  }
  const Entry& e = it->second;
  const std::size_t size = dtype_size(e.dtype);
  if (size == 0) {
    throw Error(ErrorCode::kUnsupported, file_.string() + ": tensor \"" + std::string(name) + "\" has dtype " +
                                             e.dtype + " (expected F32, F16, BF16 or F64)");
  }
  std::vector<unsigned char> bytes(e.end - e.begin);
  std::ifstream in(file_, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(data_offset_ + e.begin));
  if (!in || !in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()))) {
    throw Error(ErrorCode::kParse, file_.string() + ": cannot read tensor \"" + std::string(name) + "\"");
  }
  FloatTensor out;
  out.shape = e.shape;
  const std::size_t n = bytes.size() / size;
  out.values.resize(n);
  const auto le = [&](std::size_t offset, std::size_t width) {
    std::uint64_t v = 0;
    for (std::size_t b = 0; b < width; ++b) v |= static_cast<std::uint64_t>(bytes[offset + b]) << (8U * b);
    return v;
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (e.dtype == "F32") {
      out.values[i] = std::bit_cast<float>(static_cast<std::uint32_t>(le(i * 4, 4)));
    } else if (e.dtype == "F16") {
      out.values[i] = half_to_float(static_cast<std::uint16_t>(le(i * 2, 2)));
    } else if (e.dtype == "BF16") {
      out.values[i] = std::bit_cast<float>(static_cast<std::uint32_t>(le(i * 2, 2) << 16U));
    } else {
      out.values[i] = static_cast<float>(std::bit_cast<double>(le(i * 8, 8)));
    }
  }
  return out;
}

}  // namespace sieve::model
