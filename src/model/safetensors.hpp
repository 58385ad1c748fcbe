#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace sieve::model {

// One tensor of a .safetensors file, converted to float32.
struct FloatTensor {
  std::vector<std::int64_t> shape;
  std::vector<float> values;  // row-major
};

// The tensors of a .safetensors file (the format sentence-transformers saves
// module weights in): an 8-byte little-endian header length, a JSON header
// naming each tensor's dtype, shape and byte range, then the data. The header
// is read and checked when the file is opened; tensors are read on demand.
class SafetensorsFile {
 public:
  explicit SafetensorsFile(std::filesystem::path file);

  [[nodiscard]] bool contains(std::string_view name) const;
  [[nodiscard]] std::vector<std::string> names() const;
  // The tensor `name` as float32 (F32, F16, BF16 and F64 are converted); a
  // missing tensor, another dtype or a byte range outside the file is an
  // Error naming the file and the tensor.
  [[nodiscard]] FloatTensor read(std::string_view name) const;
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return file_; }

 private:
  struct Entry {
    std::string dtype;
    std::vector<std::int64_t> shape;
    std::uint64_t begin = 0;  // offsets into the data, after the header
    std::uint64_t end = 0;
  };
  std::filesystem::path file_;
  std::uint64_t data_offset_ = 0;
  std::map<std::string, Entry, std::less<>> entries_;
};

}  // namespace sieve::model
