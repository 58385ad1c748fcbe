#include "pipeline/model_inputs.hpp"

#include <algorithm>

#include "sieve/error.hpp"

namespace sieve::pipeline {

const char* type_name(runtime::ElementType type) noexcept {
  switch (type) {
    case runtime::ElementType::kFloat32: return "float32";
    case runtime::ElementType::kFloat16: return "float16";
    case runtime::ElementType::kInt64: return "int64";
    case runtime::ElementType::kInt32: return "int32";
    case runtime::ElementType::kOther: return "other";
  }
  return "other";
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

InputSlots find_encoder_inputs(const std::vector<runtime::TensorSpec>& inputs, const std::filesystem::path& onnx) {
  InputSlots slots;
  bool have_ids = false;
  bool have_mask = false;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto& in = inputs[i];
    if (in.name != "input_ids" && in.name != "attention_mask" && in.name != "token_type_ids" &&
        in.name != "position_ids") {
      throw Error(ErrorCode::kUnsupported,
                  onnx.string() + ": model input \"" + in.name +
                      "\" is not one Sieve can fill (input_ids, attention_mask, token_type_ids, position_ids); "
                      "a decoder exported with past key values needs re-exporting without them (sieve-export export)");
    }
    if ((in.type != runtime::ElementType::kInt64 && in.type != runtime::ElementType::kInt32) || in.shape.size() != 2) {
      throw Error(ErrorCode::kUnsupported, onnx.string() + ": input \"" + in.name + "\" is " + type_name(in.type) +
                                               shape_text(in.shape) + ", expected int64 or int32 [batch, sequence]");
    }
    if (in.name == "input_ids") {
      slots.input_ids = i;
      have_ids = true;
    } else if (in.name == "attention_mask") {
      slots.attention_mask = i;
      have_mask = true;
    } else if (in.name == "position_ids") {
      slots.position_ids = i;
    } else {
      slots.token_type_ids = i;
    }
  }
  if (!have_ids || !have_mask) {
    throw Error(ErrorCode::kUnsupported, onnx.string() + ": the model needs inputs input_ids and attention_mask");
  }
  return slots;
}

void BatchTensors::fill(std::span<const Encoding* const> encodings, const InputSlots& slots) {
  const bool with_types = slots.token_type_ids.has_value();
  const bool with_positions = slots.position_ids.has_value();
  const std::size_t batch = encodings.size();
  std::size_t seq = 1;  // an empty encoding still needs one column
  for (const Encoding* e : encodings) seq = std::max(seq, e->size());
  ids.assign(batch * seq, 0);
  mask.assign(batch * seq, 0);
  types.assign(with_types ? batch * seq : 0, 0);
  // As transformers computes them from the mask (cumsum - 1, padding 1):
  // padding is on the right, so each row counts from 0.
  positions.assign(with_positions ? batch * seq : 0, 1);
  for (std::size_t row = 0; row < batch; ++row) {
    const Encoding& e = *encodings[row];
    const auto at = static_cast<std::ptrdiff_t>(row * seq);
    std::copy(e.ids.begin(), e.ids.end(), ids.begin() + at);
    // An encoding may leave tokens unattended (a ColBERT query's expansion).
    if (e.attention_mask.size() == e.size()) {
      std::copy(e.attention_mask.begin(), e.attention_mask.end(), mask.begin() + at);
    } else {
      std::fill_n(mask.begin() + at, e.size(), 1);
    }
    if (with_types) std::copy(e.type_ids.begin(), e.type_ids.end(), types.begin() + at);
    if (with_positions) {
      for (std::size_t t = 0; t < e.size(); ++t) positions[row * seq + t] = static_cast<std::int64_t>(t);
    }
  }
  shape = {static_cast<std::int64_t>(batch), static_cast<std::int64_t>(seq)};
}

std::vector<runtime::Int64Input> BatchTensors::inputs(const InputSlots& slots) const {
  std::vector<runtime::Int64Input> out;
  out.push_back({slots.input_ids, ids.data(), shape});
  out.push_back({slots.attention_mask, mask.data(), shape});
  if (slots.token_type_ids) out.push_back({*slots.token_type_ids, types.data(), shape});
  if (slots.position_ids) out.push_back({*slots.position_ids, positions.data(), shape});
  return out;
}

const runtime::TensorSpec& output_at(const runtime::Session& session, std::size_t index, const std::string& name,
                                     const std::filesystem::path& onnx) {
  const auto& outputs = session.outputs();
  if (index >= outputs.size() || outputs[index].name != name) {
    throw Error(ErrorCode::kRuntime, onnx.string() + ": ONNX Runtime does not list the graph's output \"" + name +
                                         "\" at position " + std::to_string(index));
  }
  return outputs[index];
}

}  // namespace sieve::pipeline
