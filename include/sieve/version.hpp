#pragma once

#include <string>
#include <vector>

namespace sieve {

// This build of Sieve ("0.1.0").
const char* version() noexcept;

// What Sieve runs on: the version of the ONNX Runtime library it loaded and
// the execution providers that library was built with ("cpu", "cuda", ...),
// in ONNX Runtime's order. A provider listed here can still fail to start
// (no GPU, missing CUDA libraries); the session reports that when it falls back.
struct RuntimeBuild {
  std::string onnxruntime_version;
  std::vector<std::string> providers;
};
RuntimeBuild runtime_build();

// One device an execution provider plugin offers ("CPU", "GPU", "NPU").
struct PluginDevice {
  std::string device;        // the plugin's name for it (what its option device= takes)
  std::string description;   // the hardware, as the plugin names it
  std::string capabilities;  // e.g. "BF16 FP32 FP16 INT8"
};

// An execution provider Sieve loads as a plugin library (`--provider openvino`), with where its library was
// found and the devices it offers here, or why it is unavailable.
struct PluginProviderInfo {
  std::string name;     // "openvino"
  std::string library;  // the library's path; empty when not found
  std::vector<PluginDevice> devices;
  std::string error;  // empty when the plugin loaded
};

// Every plugin provider Sieve knows, each loaded (once per process, with the default search for its library)
// to list its devices. Loading creates ONNX Runtime's environment if no model did yet, without the shared
// thread pool: a program that wants the shared pool loads a model with it first.
std::vector<PluginProviderInfo> plugin_providers();

// OpenVINO's own runtime (its C library, which Sieve's set-up puts beside the OpenVINO plugin): where the plugin
// offers no device (it takes Intel hardware only), `--provider openvino` runs the whole graph on it.
struct OpenVinoRuntime {
  std::string library;               // the C library's path; empty when not found
  std::string version;               // "2026.4.1"
  std::vector<std::string> devices;  // "CPU", ...
  std::string error;                 // empty when it loaded and offers a device
};
OpenVinoRuntime openvino_runtime();

}  // namespace sieve
