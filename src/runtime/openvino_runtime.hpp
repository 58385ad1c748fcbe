#pragma once

// OpenVINO's own runtime, through its C library loaded at run time: a whole ONNX graph read and compiled by
// OpenVINO for one of its devices. This is how `--provider openvino` runs where ONNX Runtime's OpenVINO plugin
// offers no device (the plugin takes Intel hardware only; OpenVINO's CPU runtime runs on any x86-64 CPU with
// AVX2, and in bf16 where the CPU has AVX512-BF16 or AMX).

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "runtime/session.hpp"
#include "sieve/runtime_options.hpp"

namespace sieve::runtime {

// OpenVINO's runtime as this process finds it: its C library, version and devices, or why it is unavailable.
struct OpenVinoRuntimeInfo {
  std::string library;
  std::string version;               // "2026.4.1-..."
  std::vector<std::string> devices;  // "CPU", "GPU.0", ...
  std::string error;                 // empty: usable
};

// Finds and loads OpenVINO's C library (once per process), searched in order: the folder of the option
// `library` (the plugin's library, beside which Sieve's set-up puts it); each entry of SIEVE_EP_PATH; ep/openvino/
// beside the ONNX Runtime library; the wheel openvino's libs/ folder in the Python environments
// python_site_packages() lists.
OpenVinoRuntimeInfo openvino_runtime_info(const ProviderSpec& spec);

// A graph compiled by OpenVINO's runtime. Runs are thread-safe: each concurrent run takes its own infer request.
class OpenVinoGraph {
 public:
  // Reads `model` (an ONNX file, with its external data) and compiles it for the device `spec` names (default
  // CPU) with its options (precision, threads, cache_dir); `threads` when the spec gives none. Throws Error:
  // kInvalidArgument for a bad option or a device this machine lacks, kUnsupported when the runtime is not
  // installed or cannot take the graph. `names`, where given, are the file's own input and output names, which the
  // graph's ports are found by (and an Error, kUnsupported, when OpenVINO's reading lacks one).
  OpenVinoGraph(const std::filesystem::path& model, const ProviderSpec& spec, int threads,
                const GraphNames& names = {});
  OpenVinoGraph(const OpenVinoGraph&) = delete;
  OpenVinoGraph& operator=(const OpenVinoGraph&) = delete;
  ~OpenVinoGraph();

  [[nodiscard]] const std::vector<TensorSpec>& inputs() const noexcept { return inputs_; }
  [[nodiscard]] const std::vector<TensorSpec>& outputs() const noexcept { return outputs_; }
  [[nodiscard]] int threads() const noexcept { return threads_; }
  // "OpenVINO runtime 2026.4.1 on CPU at bf16": what runs the graph, for `sieve info` and the log.
  [[nodiscard]] const std::string& description() const noexcept { return description_; }

  // The output `output_index` as float32 (converted where the graph gives float16 or bfloat16).
  [[nodiscard]] FloatOutput run(std::span<const Int64Input> inputs, std::size_t output_index) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::vector<TensorSpec> inputs_;
  std::vector<TensorSpec> outputs_;
  int threads_ = 0;
  std::string description_;
};

}  // namespace sieve::runtime
