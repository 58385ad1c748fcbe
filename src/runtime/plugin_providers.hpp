#pragma once

// Execution providers that ONNX Runtime loads as plugin libraries (its plugin EP interface: a library registered
// once per process, the devices it offers, and a session option that appends one of them).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/ort_api.hpp"
#include "sieve/runtime_options.hpp"
#include "sieve/version.hpp"

namespace sieve::runtime {

// A provider Sieve knows how to load as a plugin.
struct PluginProvider {
  std::string name;            // Sieve's name: "openvino"
  std::string ep_name;         // ONNX Runtime's: "OpenVINOExecutionProvider"
  std::string library_file;    // "libonnxruntime_providers_openvino_plugin.so"
  std::string python_package;  // the PyPI wheel's package folder: "onnxruntime_ep_openvino"
  // Libraries beside the plugin that it links by a name its wheel does not carry ("libtensorrt_rtx.so.1" where
  // the wheel has libtensorrt_rtx.so.1.7.1): loaded first, by file name prefix, so the plugin finds them.
  std::vector<std::string> preload;
  // OpenVINO's options are Sieve's own (device, precision, threads, cache_dir); another plugin's are handed to
  // it as they are given, but for library and device (the index of one of its devices, default 0).
  bool openvino_options = false;
  // The hardware the plugin takes, for the message when it offers no device here.
  std::string hardware;
};

// The plugins Sieve knows, in the order `sieve --version` lists them.
std::vector<const PluginProvider*> plugin_provider_table();

// The plugin of that name, or null.
const PluginProvider* find_plugin_provider(std::string_view name);

// Where the plugin's library is, searched in order: the provider option `library`; each entry of
// SIEVE_EP_PATH (':'-separated folders or library files); ep/<name>/ beside the ONNX Runtime library Sieve
// loaded (where Sieve's set-up puts it); the package folder of the installed wheel in the active Python
// environment ($VIRTUAL_ENV) and the user's and the system's site-packages. Null when none has it; `searched`
// then lists the places.
std::optional<std::filesystem::path> locate_plugin_library(const PluginProvider& plugin, const ProviderSpec& spec,
                                                           std::vector<std::string>* searched = nullptr);

// Registers the plugin's library with `env` (once per process; later calls do nothing) and lists its devices.
// Throws Error (kUnsupported) with one line saying why: library not found, not loadable, no devices.
std::vector<PluginDevice> register_plugin(OrtEnv* env, const PluginProvider& plugin, const ProviderSpec& spec);

// Every plugin Sieve knows, registered with `env` as register_plugin does (default search), with its library
// and devices or the reason it is unavailable.
std::vector<PluginProviderInfo> list_plugins(OrtEnv* env);

// OpenVINO's options as Sieve takes them (`openvino:device=CPU,precision=bf16,threads=2,cache_dir=DIR`), the same
// for ONNX Runtime's plugin and for OpenVINO's own runtime (openvino_runtime.hpp). Throws Error
// (kInvalidArgument) naming an unknown option or a bad value; `provider` is the name the message gives.
struct OpenVinoOptions {
  std::string device = "CPU";            // upper case, as OpenVINO names devices
  std::optional<std::string> precision;  // "bf16", "f32", "f16" (OpenVINO's inference precision hint) or "accuracy"
  std::optional<int> threads;
  std::optional<std::string> cache_dir;
};
OpenVinoOptions openvino_options(const std::string& provider, const ProviderSpec& spec);

// Where libraries are looked for, shared by the plugins and OpenVINO's runtime: the folder of the ONNX Runtime
// library this process loaded; the entries of SIEVE_EP_PATH (':'-separated folders or library files); the
// site-packages folders of the active Python environment ($VIRTUAL_ENV), the user's and the system's.
std::optional<std::filesystem::path> onnxruntime_folder();
std::vector<std::filesystem::path> ep_path_entries();
std::vector<std::filesystem::path> python_site_packages();

// Throws Error (kInvalidArgument) naming an unknown option or a bad value of `spec`, before the plugin is loaded:
// a mistake is the same on every machine, whatever hardware the plugin finds.
void check_plugin_options(const PluginProvider& plugin, const ProviderSpec& spec);

// Appends the plugin's provider for the device `spec` chooses (option device, default CPU) with its options
// translated (precision, threads, cache_dir); `intra_op_threads` is the session's, the plugin's threads when
// the spec says none. Throws Error (kInvalidArgument) naming an unknown option or a bad value.
void append_plugin(OrtEnv* env, OrtSessionOptions* options, const PluginProvider& plugin, const ProviderSpec& spec,
                   int intra_op_threads);

}  // namespace sieve::runtime
