#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sieve/model_info.hpp"
#include "sieve/runtime_options.hpp"

struct OrtSession;
struct OrtValue;
struct OrtMemoryInfo;

namespace sieve::runtime {

enum class ElementType { kFloat32, kFloat16, kInt64, kInt32, kOther };

// A model input or output as the ONNX file declares it; -1 marks a dynamic axis.
struct TensorSpec {
  std::string name;
  ElementType type = ElementType::kOther;
  std::vector<std::int64_t> shape;
};

// An int64 input that borrows the caller's buffer: no copy is made where the
// graph takes int64; a graph declaring int32 gets a converted copy.
struct Int64Input {
  std::size_t input_index;
  const std::int64_t* data;
  std::vector<std::int64_t> shape;
};

// A float output: ORT's float32 tensor read in place (owning the OrtValue),
// or a float16 one converted to float32 (owning the converted values).
class FloatOutput {
 public:
  FloatOutput(OrtValue* value, const float* data, std::vector<std::int64_t> shape);
  FloatOutput(std::vector<float> converted, std::vector<std::int64_t> shape);
  FloatOutput(FloatOutput&&) noexcept;
  FloatOutput& operator=(FloatOutput&&) noexcept;
  ~FloatOutput();

  [[nodiscard]] const float* data() const noexcept { return data_; }
  [[nodiscard]] const std::vector<std::int64_t>& shape() const noexcept { return shape_; }

 private:
  OrtValue* value_;
  const float* data_;
  std::vector<std::int64_t> shape_;
  std::vector<float> converted_;
};

// A graph's input and output names as its ONNX file declares them, in order: what a runtime that reads the file
// itself (OpenVINO's) must find them by.
struct GraphNames {
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
};

// One ORT session. Run is thread-safe (ORT sessions allow concurrent runs).
class Session {
 public:
  // `names`: the file's own (model::OnnxSummary's), where the caller has read them.
  Session(const std::filesystem::path& model, const RuntimeOptions& options, const GraphNames& names = {});
  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;
  ~Session();

  [[nodiscard]] const std::vector<TensorSpec>& inputs() const noexcept { return inputs_; }
  [[nodiscard]] const std::vector<TensorSpec>& outputs() const noexcept { return outputs_; }
  // Providers the session was created with, in priority order, CPU last.
  [[nodiscard]] const std::vector<std::string>& providers() const noexcept { return providers_; }
  [[nodiscard]] int intra_op_threads() const noexcept { return intra_op_threads_; }
  // How ONNX Runtime placed the graph's nodes on those providers, in the order of `providers()`.
  [[nodiscard]] const std::vector<ProviderNodes>& partition() const noexcept { return partition_; }

  [[nodiscard]] FloatOutput run(std::span<const Int64Input> inputs, std::size_t output_index) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::vector<TensorSpec> inputs_;
  std::vector<TensorSpec> outputs_;
  std::vector<std::string> providers_;
  std::vector<ProviderNodes> partition_;
  int intra_op_threads_ = 0;
};

// Provider names the loaded ONNX Runtime library was built with, in Sieve's spelling.
std::vector<std::string> available_providers();

}  // namespace sieve::runtime
