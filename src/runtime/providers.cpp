#include "runtime/providers.hpp"

#include "logging.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "runtime/plugin_providers.hpp"
#include "runtime/session.hpp"
#include "sieve/error.hpp"

namespace sieve::runtime {
namespace {

// Sieve's names for ORT's execution providers.
const std::map<std::string, std::string>& ort_names() {
  static const std::map<std::string, std::string> names = {
      {"cpu", "CPUExecutionProvider"},
      {"cuda", "CUDAExecutionProvider"},
      {"tensorrt", "TensorrtExecutionProvider"},
      {"openvino", "OpenVINOExecutionProvider"},
      {"dnnl", "DnnlExecutionProvider"},
      {"coreml", "CoreMLExecutionProvider"},
      {"directml", "DmlExecutionProvider"},
      {"rocm", "ROCMExecutionProvider"},
      {"xnnpack", "XnnpackExecutionProvider"},
      {"qnn", "QNNExecutionProvider"},
      {"tensorrt_rtx", "NvTensorRTRTXExecutionProvider"},
  };
  return names;
}

struct KeyValues {
  std::vector<const char*> keys;
  std::vector<const char*> values;
  explicit KeyValues(const std::map<std::string, std::string>& options) {
    for (const auto& [k, v] : options) {
      keys.push_back(k.c_str());
      values.push_back(v.c_str());
    }
  }
};

void append_one(OrtSessionOptions* options, const ProviderSpec& spec) {
  const KeyValues kv(spec.options);
  if (spec.name == "cuda") {
    OrtCUDAProviderOptionsV2* raw = nullptr;
    check(ort().CreateCUDAProviderOptions(&raw), "creating CUDA provider options");
    const OrtPtr<OrtCUDAProviderOptionsV2> cuda(raw);
    check(ort().UpdateCUDAProviderOptions(cuda.get(), kv.keys.data(), kv.values.data(), kv.keys.size()),
          "setting CUDA provider options");
    check(ort().SessionOptionsAppendExecutionProvider_CUDA_V2(options, cuda.get()), "adding the CUDA provider");
  } else if (spec.name == "tensorrt") {
    OrtTensorRTProviderOptionsV2* raw = nullptr;
    check(ort().CreateTensorRTProviderOptions(&raw), "creating TensorRT provider options");
    const OrtPtr<OrtTensorRTProviderOptionsV2> trt(raw);
    check(ort().UpdateTensorRTProviderOptions(trt.get(), kv.keys.data(), kv.values.data(), kv.keys.size()),
          "setting TensorRT provider options");
    check(ort().SessionOptionsAppendExecutionProvider_TensorRT_V2(options, trt.get()), "adding the TensorRT provider");
  } else {
    static const std::map<std::string, std::string> generic = {{"openvino", "OpenVINO"}, {"coreml", "CoreML"},
                                                               {"xnnpack", "XNNPACK"},   {"qnn", "QNN"},
                                                               {"dnnl", "DNNL"},         {"directml", "DML"}};
    const auto it = generic.find(spec.name);
    if (it == generic.end())
      throw Error(ErrorCode::kUnsupported, "provider \"" + spec.name + "\" cannot be configured");
    check(ort().SessionOptionsAppendExecutionProvider(options, it->second.c_str(), kv.keys.data(), kv.values.data(),
                                                      kv.keys.size()),
          ("adding the " + spec.name + " provider").c_str());
  }
}

}  // namespace

std::string provider_name(std::string_view ort_name) {
  for (const auto& [ours, theirs] : ort_names()) {
    if (theirs == ort_name) return ours;
  }
  // Others (e.g. AzureExecutionProvider) in the same spelling: "azure".
  std::string name(ort_name.substr(0, ort_name.rfind("ExecutionProvider")));
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name;
}

std::vector<std::string> available_providers() {
  char** list = nullptr;
  int count = 0;
  check(ort().GetAvailableProviders(&list, &count), "listing execution providers");
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) out.push_back(provider_name(list[i]));
  check(ort().ReleaseAvailableProviders(list, count), "releasing the provider list");
  return out;
}

std::vector<std::string> append_providers(OrtEnv* env, OrtSessionOptions* options, const RuntimeOptions& runtime,
                                          int intra_op_threads) {
  const auto available = available_providers();
  std::vector<std::string> used;
  for (const auto& spec : runtime.providers) {
    if (spec.name == "cpu") break;  // CPU is the fallback at the end anyway
    if (ort_names().count(spec.name) == 0) {
      throw Error(ErrorCode::kInvalidArgument,
                  "unknown execution provider \"" + spec.name +
                      "\" (known: cpu, cuda, tensorrt, tensorrt_rtx, openvino, dnnl, coreml, "
                      "directml, rocm, xnnpack, qnn)");
    }
    const bool present = std::find(available.begin(), available.end(), spec.name) != available.end();
    const PluginProvider* plugin = present ? nullptr : find_plugin_provider(spec.name);
    std::string why;
    if (present) {
      try {
        append_one(options, spec);
        used.push_back(spec.name);
        continue;
      } catch (const Error& e) {
        why = e.what();
      }
    } else if (plugin != nullptr) {
      // Not built into this library: loaded as a plugin. A bad option is the caller's error, never skipped.
      check_plugin_options(*plugin, spec);  // before anything is loaded: the same on every machine
      try {
        register_plugin(env, *plugin, spec);
        append_plugin(env, options, *plugin, spec, intra_op_threads);
        used.push_back(spec.name);
        continue;
      } catch (const Error& e) {
        if (e.code() == ErrorCode::kInvalidArgument) throw;
        why = e.what();
      }
    } else {
      why = "this ONNX Runtime library was not built with it";
    }
    if (runtime.strict_providers) {
      throw Error(ErrorCode::kUnsupported, "execution provider \"" + spec.name + "\" is unavailable: " + why);
    }
    logger().warn("execution provider {} skipped: {}", spec.name, why);
  }
  used.emplace_back("cpu");
  return used;
}

}  // namespace sieve::runtime
