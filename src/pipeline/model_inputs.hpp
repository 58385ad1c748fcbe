#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runtime/session.hpp"
#include "sieve/tokenizer.hpp"

namespace sieve::pipeline {

// Spelling of tensor types and shapes in error messages and ModelInfo.
const char* type_name(runtime::ElementType type) noexcept;
std::string shape_text(const std::vector<std::int64_t>& shape);
// Outputs Sieve reads: float32, or float16 (converted as it is read).
inline bool is_float(runtime::ElementType type) noexcept {
  return type == runtime::ElementType::kFloat32 || type == runtime::ElementType::kFloat16;
}

// Where a model takes its inputs: ids and mask are required, token types
// (BERT-style encoders) and positions (decoders) optional; anything else is
// refused, naming it (Sieve could not fill it).
struct InputSlots {
  std::size_t input_ids = 0;
  std::size_t attention_mask = 0;
  std::optional<std::size_t> token_type_ids;
  std::optional<std::size_t> position_ids;
};
InputSlots find_encoder_inputs(const std::vector<runtime::TensorSpec>& inputs, const std::filesystem::path& onnx);

// The session's output `index`, which the ONNX file names `name` (a model's spec is decided from the file before
// the session is made); an Error where ONNX Runtime lists another.
const runtime::TensorSpec& output_at(const runtime::Session& session, std::size_t index, const std::string& name,
                                     const std::filesystem::path& onnx);

// The int64 tensors of one batch, padded with zeros to its longest encoding.
// The buffers are reused from batch to batch; inputs() borrows them.
struct BatchTensors {
  std::vector<std::int64_t> ids;
  std::vector<std::int64_t> mask;
  std::vector<std::int64_t> types;
  std::vector<std::int64_t> positions;
  std::vector<std::int64_t> shape;  // {batch, sequence}

  // Fills the tensors with the encodings, in their order; token types and
  // positions only when the model takes them (`slots`).
  void fill(std::span<const Encoding* const> encodings, const InputSlots& slots);
  [[nodiscard]] std::vector<runtime::Int64Input> inputs(const InputSlots& slots) const;
};

}  // namespace sieve::pipeline
