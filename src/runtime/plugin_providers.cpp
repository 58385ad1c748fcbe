#include "runtime/plugin_providers.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <system_error>

#include "sieve/error.hpp"

namespace sieve::runtime {
namespace fs = std::filesystem;
namespace {

const std::array<PluginProvider, 2>& plugins() {
  static const std::array<PluginProvider, 2> list = {
      PluginProvider{"openvino",
                     "OpenVINOExecutionProvider",
                     "libonnxruntime_providers_openvino_plugin.so",
                     "onnxruntime_ep_openvino",
                     {},
                     true,
                     "Intel CPUs, GPUs and NPUs only"},
      // NVIDIA's TensorRT RTX (PyPI: onnxruntime-ep-nv-tensorrt-rtx-cu12 / -cu13); it needs a GPU and its driver.
      PluginProvider{"tensorrt_rtx",
                     "NvTensorRTRTXExecutionProvider",
                     "libonnxruntime_providers_nv_tensorrt_rtx.so",
                     "onnxruntime_ep_nv_tensorrt_rtx",
                     {"libcudart.so.", "libtensorrt_rtx.so.", "libtensorrt_onnxparser_rtx.so."},
                     false,
                     "NVIDIA RTX GPUs with their driver"},
  };
  return list;
}

// Loads the libraries `plugin` links from its folder (see PluginProvider::preload); kept loaded for the process.
std::string preload_beside(const PluginProvider& plugin, const fs::path& library) {
  for (const auto& prefix : plugin.preload) {
    std::vector<fs::path> found;
    std::error_code ec;
    for (fs::directory_iterator it(library.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().filename().string().rfind(prefix, 0) == 0) found.push_back(it->path());
    }
    if (found.empty())
      return "the library " + prefix + "* it needs is not beside it in " + library.parent_path().string();
    std::sort(found.begin(), found.end());
    if (dlopen(found.back().c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
      const char* why = dlerror();
      return found.back().string() + " did not load: " + (why != nullptr ? why : "unknown error");
    }
  }
  return {};
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

}  // namespace

std::optional<fs::path> onnxruntime_folder() {
  Dl_info info{};
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): dladdr takes the function's address
  if (dladdr(reinterpret_cast<const void*>(&OrtGetApiBase), &info) == 0 || info.dli_fname == nullptr) {
    return std::nullopt;
  }
  std::error_code ec;
  const fs::path library = fs::canonical(info.dli_fname, ec);
  if (ec) return std::nullopt;
  return library.parent_path();
}

namespace {

// The site-packages folders of `prefix` (lib/python3.*/site-packages, and Debian's dist-packages).
std::vector<fs::path> site_packages(const fs::path& prefix) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& lib : {prefix / "lib", prefix / "local/lib"}) {
    for (fs::directory_iterator it(lib, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.rfind("python3", 0) != 0) continue;
      out.push_back(it->path() / "site-packages");
      out.push_back(it->path() / "dist-packages");
    }
    ec.clear();
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<fs::path> python_site_packages() {
  std::vector<fs::path> prefixes;
  if (const char* venv = std::getenv("VIRTUAL_ENV"); venv != nullptr && *venv != '\0') prefixes.emplace_back(venv);
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    prefixes.push_back(fs::path(home) / ".local");
  }
  prefixes.emplace_back("/usr");
  std::vector<fs::path> out;
  for (const auto& prefix : prefixes) {
    for (auto& site : site_packages(prefix)) out.push_back(std::move(site));
  }
  return out;
}

std::vector<fs::path> ep_path_entries() {
  std::vector<fs::path> out;
  const char* paths = std::getenv("SIEVE_EP_PATH");
  std::string_view rest = paths != nullptr ? paths : "";
  while (!rest.empty()) {
    const auto colon = rest.find(':');
    if (colon != 0) out.emplace_back(std::string(rest.substr(0, colon)));
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return out;
}

namespace {

const char* value_or_empty(const OrtKeyValuePairs* pairs, const char* key) {
  if (pairs == nullptr) return "";
  const char* value = ort().GetKeyValue(pairs, key);
  return value != nullptr ? value : "";
}

struct Registration {
  fs::path library;
  std::string error;  // empty: registered
};

struct Registry {
  std::mutex mutex;
  std::map<std::string, Registration> done;
};

Registry& registry() {
  static Registry r;
  return r;
}

// The plugin's devices, as ONNX Runtime lists them for `env`.
std::vector<const OrtEpDevice*> ep_devices(OrtEnv* env, const PluginProvider& plugin) {
  const OrtEpDevice* const* devices = nullptr;
  std::size_t count = 0;
  check(ort().GetEpDevices(env, &devices, &count), "listing the execution providers' devices");
  std::vector<const OrtEpDevice*> out;
  for (std::size_t i = 0; i < count; ++i) {
    if (plugin.ep_name == ort().EpDevice_EpName(devices[i])) out.push_back(devices[i]);
  }
  return out;
}

// The machine's hardware as ONNX Runtime sees it, by kind and vendor: "a CPU by AMD".
std::string machine_hardware(OrtEnv* env) {
  const OrtEpDevice* const* devices = nullptr;
  std::size_t count = 0;
  if (OrtStatus* status = ort().GetEpDevices(env, &devices, &count); status != nullptr) {
    ort().ReleaseStatus(status);
    return "no device";
  }
  std::set<std::string> seen;
  for (std::size_t i = 0; i < count; ++i) {
    const OrtHardwareDevice* hw = ort().EpDevice_Device(devices[i]);
    if (hw == nullptr) continue;
    const OrtHardwareDeviceType type = ort().HardwareDevice_Type(hw);
    const char* kind = type == OrtHardwareDeviceType_CPU ? "CPU" : type == OrtHardwareDeviceType_GPU ? "GPU" : "NPU";
    const char* vendor = ort().HardwareDevice_Vendor(hw);
    seen.insert(std::string("a ") + kind + (vendor != nullptr && *vendor != '\0' ? std::string(" by ") + vendor : ""));
  }
  std::string out;
  for (const auto& s : seen) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "no device" : out;
}

// The device's name: OpenVINO's own ("CPU", "GPU.0"), else its kind and vendor ("GPU NVIDIA").
std::string device_of(const OrtEpDevice* device) {
  std::string name = value_or_empty(ort().EpDevice_EpMetadata(device), "ov_device");
  if (!name.empty()) return name;
  const OrtHardwareDevice* hw = ort().EpDevice_Device(device);
  if (hw == nullptr) return "device";
  switch (ort().HardwareDevice_Type(hw)) {
    case OrtHardwareDeviceType_CPU: name = "CPU"; break;
    case OrtHardwareDeviceType_GPU: name = "GPU"; break;
    case OrtHardwareDeviceType_NPU: name = "NPU"; break;
  }
  const char* vendor = ort().HardwareDevice_Vendor(hw);
  if (vendor != nullptr && *vendor != '\0') name += std::string(" ") + vendor;
  return name;
}

std::string upper(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return text;
}

}  // namespace

std::vector<const PluginProvider*> plugin_provider_table() {
  std::vector<const PluginProvider*> out;
  for (const auto& p : plugins()) out.push_back(&p);
  return out;
}

const PluginProvider* find_plugin_provider(std::string_view name) {
  for (const auto& p : plugins()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::optional<fs::path> locate_plugin_library(const PluginProvider& plugin, const ProviderSpec& spec,
                                              std::vector<std::string>* searched) {
  std::vector<fs::path> candidates;
  if (const auto it = spec.options.find("library"); it != spec.options.end()) {
    candidates.emplace_back(it->second);  // the one place asked for
  } else {
    for (const auto& entry : ep_path_entries()) {
      candidates.push_back(is_file(entry) ? entry : entry / plugin.library_file);
    }
    if (const auto ort_folder = onnxruntime_folder()) {
      candidates.push_back(*ort_folder / "ep" / plugin.name / plugin.library_file);
    }
    for (const auto& site : python_site_packages()) {
      candidates.push_back(site / plugin.python_package / plugin.library_file);
    }
  }
  for (const auto& c : candidates) {
    if (is_file(c)) return c;
    if (searched != nullptr) searched->push_back(c.string());
  }
  return std::nullopt;
}

std::vector<PluginDevice> register_plugin(OrtEnv* env, const PluginProvider& plugin, const ProviderSpec& spec) {
  Registry& r = registry();
  {
    const std::lock_guard lock(r.mutex);
    auto it = r.done.find(plugin.name);
    if (it == r.done.end()) {
      Registration reg;
      std::vector<std::string> searched;
      if (const auto library = locate_plugin_library(plugin, spec, &searched)) {
        reg.library = *library;
        reg.error = preload_beside(plugin, *library);
        OrtStatus* status = reg.error.empty()
                                ? ort().RegisterExecutionProviderLibrary(env, plugin.name.c_str(), library->c_str())
                                : nullptr;
        if (status != nullptr) {
          reg.error = "its library " + library->string() + " did not load: " + ort().GetErrorMessage(status);
          ort().ReleaseStatus(status);
        }
      } else {
        std::string places;
        for (const auto& s : searched) places += (places.empty() ? "" : ", ") + s;
        reg.error = "its plugin library " + plugin.library_file + " was not found (install the Python package " +
                    plugin.python_package +
                    " in the active environment, or give its folder in SIEVE_EP_PATH or the option library=PATH; "
                    "searched: " +
                    places + ")";
      }
      it = r.done.emplace(plugin.name, std::move(reg)).first;
    } else if (const auto asked = spec.options.find("library"); asked != spec.options.end() &&
                                                                it->second.error.empty() &&
                                                                fs::path(asked->second) != it->second.library) {
      throw Error(ErrorCode::kInvalidArgument, "the " + plugin.name + " plugin is already loaded from " +
                                                   it->second.library.string() + "; one library per process");
    }
    if (!it->second.error.empty()) throw Error(ErrorCode::kUnsupported, it->second.error);
  }
  std::vector<PluginDevice> out;
  for (const OrtEpDevice* d : ep_devices(env, plugin)) {
    const OrtKeyValuePairs* meta = ort().EpDevice_EpMetadata(d);
    out.push_back(
        {device_of(d), value_or_empty(meta, "FULL_DEVICE_NAME"), value_or_empty(meta, "OPTIMIZATION_CAPABILITIES")});
  }
  if (out.empty()) {
    throw Error(ErrorCode::kUnsupported, "the " + plugin.name + " plugin offers no device on this machine (it takes " +
                                             plugin.hardware + "; ONNX Runtime sees " + machine_hardware(env) + ")");
  }
  return out;
}

std::vector<PluginProviderInfo> list_plugins(OrtEnv* env) {
  std::vector<PluginProviderInfo> out;
  for (const auto& plugin : plugins()) {
    PluginProviderInfo info{plugin.name, {}, {}, {}};
    try {
      info.devices = register_plugin(env, plugin, ProviderSpec{plugin.name, {}});
    } catch (const Error& e) {
      info.error = e.what();
    }
    Registry& r = registry();
    const std::lock_guard lock(r.mutex);
    if (const auto it = r.done.find(plugin.name); it != r.done.end()) info.library = it->second.library.string();
    if (info.library.empty() && !info.error.empty()) {
      // The places searched are in the error of a --provider that asks for it; a listing says it briefly.
      info.error = "not installed (its library " + plugin.library_file + " comes with the Python package " +
                   plugin.python_package + "; or give its folder in SIEVE_EP_PATH)";
    }
    out.push_back(std::move(info));
  }
  return out;
}

namespace {

// A plugin other than OpenVINO: its options as given (but library and device), on the device whose index the
// option device gives (default 0).
void append_as_given(OrtEnv* env, OrtSessionOptions* options, const PluginProvider& plugin, const ProviderSpec& spec) {
  std::size_t index = 0;
  std::map<std::string, std::string> ep_options;
  for (const auto& [key, value] : spec.options) {
    if (key == "library") continue;
    if (key == "device") {
      const bool digits = !value.empty() && value.size() < 4 &&
                          std::all_of(value.begin(), value.end(), [](unsigned char c) { return std::isdigit(c); });
      if (!digits) {
        throw Error(ErrorCode::kInvalidArgument,
                    plugin.name + " option device=\"" + value + "\" is not a device index (0, 1, ...)");
      }
      index = std::stoul(value);
      continue;
    }
    ep_options[key] = value;
  }
  const auto devices = ep_devices(env, plugin);
  if (index >= devices.size()) {
    throw Error(ErrorCode::kInvalidArgument, plugin.name + " option device=" + std::to_string(index) + ": it offers " +
                                                 std::to_string(devices.size()) + " device(s) here");
  }
  std::vector<const char*> keys;
  std::vector<const char*> values;
  for (const auto& [k, v] : ep_options) {
    keys.push_back(k.c_str());
    values.push_back(v.c_str());
  }
  const OrtEpDevice* chosen = devices[index];
  check(
      ort().SessionOptionsAppendExecutionProvider_V2(options, env, &chosen, 1, keys.data(), values.data(), keys.size()),
      ("adding the " + plugin.name + " provider").c_str());
}

}  // namespace

OpenVinoOptions openvino_options(const std::string& provider, const ProviderSpec& spec) {
  static const std::set<std::string> known = {"library", "device", "precision", "threads", "cache_dir"};
  for (const auto& [key, value] : spec.options) {
    if (known.count(key) == 0) {
      throw Error(ErrorCode::kInvalidArgument, "unknown " + provider + " option \"" + key +
                                                   "\" (known: device, precision, threads, cache_dir, library)");
    }
    if (value.empty()) {
      throw Error(ErrorCode::kInvalidArgument, provider + " option \"" + key + "\" has no value");
    }
  }
  const auto option = [&](const char* key) -> std::optional<std::string> {
    const auto it = spec.options.find(key);
    return it == spec.options.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  OpenVinoOptions out;
  out.device = upper(option("device").value_or("CPU"));
  if (const auto precision = option("precision")) {
    static const std::map<std::string, std::string> hints = {
        {"bf16", "bf16"}, {"f32", "f32"}, {"fp32", "f32"}, {"f16", "f16"}, {"fp16", "f16"}, {"accuracy", "accuracy"}};
    const auto hint = hints.find(*precision);
    if (hint == hints.end()) {
      throw Error(ErrorCode::kInvalidArgument,
                  provider + " option precision=\"" + *precision + "\" is not one of bf16, f32, f16, accuracy");
    }
    out.precision = hint->second;
  }
  if (const auto threads = option("threads")) {
    const bool digits = std::all_of(threads->begin(), threads->end(), [](unsigned char c) { return std::isdigit(c); });
    if (!digits || threads->size() > 6) {
      throw Error(ErrorCode::kInvalidArgument, provider + " option threads=\"" + *threads + "\" is not a thread count");
    }
    check_thread_count(std::stoll(*threads), provider + " option threads");
    out.threads = std::stoi(*threads);
  }
  out.cache_dir = option("cache_dir");
  return out;
}

namespace {

// OpenVINO's options as the plugin takes them, and the device asked for.
struct OpenVinoSettings {
  std::string device;
  std::map<std::string, std::string> ep_options;
};

OpenVinoSettings openvino_settings(const PluginProvider& plugin, const ProviderSpec& spec, int intra_op_threads) {
  const OpenVinoOptions options = openvino_options(plugin.name, spec);
  std::map<std::string, std::string> ep_options;
  if (options.precision == "accuracy") {
    ep_options["precision"] = "ACCURACY";  // the model's own precision
  } else if (options.precision) {
    ep_options["load_config"] =
        R"({")" + options.device + R"(":{"INFERENCE_PRECISION_HINT":")" + *options.precision + R"("}})";
  }
  if (options.threads) {
    ep_options["num_of_threads"] = std::to_string(*options.threads);
  } else if (intra_op_threads > 0) {
    ep_options["num_of_threads"] = std::to_string(intra_op_threads);
  }
  if (options.cache_dir) ep_options["cache_dir"] = *options.cache_dir;
  return {options.device, ep_options};
}

}  // namespace

void check_plugin_options(const PluginProvider& plugin, const ProviderSpec& spec) {
  if (plugin.openvino_options) (void)openvino_settings(plugin, spec, 0);
}

void append_plugin(OrtEnv* env, OrtSessionOptions* options, const PluginProvider& plugin, const ProviderSpec& spec,
                   int intra_op_threads) {
  if (!plugin.openvino_options) {
    append_as_given(env, options, plugin, spec);
    return;
  }
  const auto [device, ep_options] = openvino_settings(plugin, spec, intra_op_threads);
  const OrtEpDevice* chosen = nullptr;
  std::string offered;
  for (const OrtEpDevice* d : ep_devices(env, plugin)) {
    offered += (offered.empty() ? "" : ", ") + device_of(d);
    if (chosen == nullptr && upper(device_of(d)) == device) chosen = d;
  }
  if (chosen == nullptr) {
    throw Error(ErrorCode::kInvalidArgument,
                plugin.name + " option device=" + device + ": this machine offers " + offered);
  }
  std::vector<const char*> keys;
  std::vector<const char*> values;
  for (const auto& [k, v] : ep_options) {
    keys.push_back(k.c_str());
    values.push_back(v.c_str());
  }
  check(
      ort().SessionOptionsAppendExecutionProvider_V2(options, env, &chosen, 1, keys.data(), values.data(), keys.size()),
      ("adding the " + plugin.name + " provider").c_str());
}

}  // namespace sieve::runtime
