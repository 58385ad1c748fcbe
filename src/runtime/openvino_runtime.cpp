#include "runtime/openvino_runtime.hpp"

#include <dlfcn.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <optional>
#include <system_error>
#include <utility>

#include "logging.hpp"
#include "runtime/plugin_providers.hpp"
#include "sieve/error.hpp"
#include "sieve/quantize.hpp"

#if SIEVE_HAVE_OPENVINO_C
// Only the types and prototypes: the library itself is loaded at run time, so nothing requires it.
#include <openvino/c/openvino.h>
#endif

namespace sieve::runtime {
namespace fs = std::filesystem;

#if !SIEVE_HAVE_OPENVINO_C

OpenVinoRuntimeInfo openvino_runtime_info(const ProviderSpec& /*spec*/) {
#if SIEVE_OPENVINO_C_SANITIZED
  return {{}, {}, {}, "this build of Sieve has sanitizers, which OpenVINO's threading library cannot run under"};
#else
  return {{}, {}, {}, "this Sieve was built without OpenVINO's runtime interface"};
#endif
}

struct OpenVinoGraph::State {};

OpenVinoGraph::OpenVinoGraph(const fs::path& /*model*/, const ProviderSpec& spec, int /*threads*/,
                             const GraphNames& /*names*/) {
  (void)openvino_options("openvino", spec);
  throw Error(ErrorCode::kUnsupported, "OpenVINO's runtime is unavailable: " + openvino_runtime_info(spec).error);
}
OpenVinoGraph::~OpenVinoGraph() = default;
FloatOutput OpenVinoGraph::run(std::span<const Int64Input> /*inputs*/, std::size_t /*output_index*/) const {
  throw Error(ErrorCode::kUnsupported, "OpenVINO's runtime is unavailable");
}

#else

namespace {

// The entry points Sieve uses, looked up in the loaded library by name.
struct Api {
  decltype(&ov_get_openvino_version) get_version = nullptr;
  decltype(&ov_version_free) version_free = nullptr;
  decltype(&ov_get_last_err_msg) last_error = nullptr;
  decltype(&ov_get_error_info) error_info = nullptr;
  decltype(&ov_free) free_text = nullptr;
  decltype(&ov_core_create) core_create = nullptr;
  decltype(&ov_core_free) core_free = nullptr;
  decltype(&ov_core_get_available_devices) available_devices = nullptr;
  decltype(&ov_available_devices_free) available_devices_free = nullptr;
  decltype(&ov_core_read_model) read_model = nullptr;
  decltype(&ov_model_free) model_free = nullptr;
  decltype(&ov_core_compile_model_props) compile_model = nullptr;
  decltype(&ov_compiled_model_free) compiled_free = nullptr;
  decltype(&ov_compiled_model_get_property) compiled_property = nullptr;
  decltype(&ov_compiled_model_inputs_size) inputs_size = nullptr;
  decltype(&ov_compiled_model_input_by_index) input_by_index = nullptr;
  decltype(&ov_compiled_model_outputs_size) outputs_size = nullptr;
  decltype(&ov_compiled_model_output_by_index) output_by_index = nullptr;
  decltype(&ov_output_const_port_free) port_free = nullptr;
  decltype(&ov_port_get_any_name) port_name = nullptr;
  decltype(&ov_port_get_element_type) port_type = nullptr;
  decltype(&ov_port_get_partial_shape) port_shape = nullptr;
  decltype(&ov_partial_shape_free) partial_shape_free = nullptr;
  decltype(&ov_compiled_model_create_infer_request) create_request = nullptr;
  decltype(&ov_infer_request_free) request_free = nullptr;
  decltype(&ov_compiled_model_input_by_name) input_by_name = nullptr;
  decltype(&ov_compiled_model_output_by_name) output_by_name = nullptr;
  decltype(&ov_infer_request_set_tensor) set_tensor = nullptr;
  decltype(&ov_infer_request_get_tensor) get_tensor = nullptr;
  decltype(&ov_infer_request_infer) infer = nullptr;
  decltype(&ov_shape_create) shape_create = nullptr;
  decltype(&ov_shape_free) shape_free = nullptr;
  decltype(&ov_tensor_create_from_host_ptr) tensor_from_host = nullptr;
  decltype(&ov_tensor_get_shape) tensor_shape = nullptr;
  decltype(&ov_tensor_get_element_type) tensor_type = nullptr;
  decltype(&ov_tensor_data) tensor_data = nullptr;
  decltype(&ov_tensor_free) tensor_free = nullptr;
};

struct Loaded {
  Api api;
  fs::path library;
  std::string version;
  std::string error;  // empty: loaded
};

// The newest file in `folder` whose name starts with `prefix` ("libopenvino_c.so").
std::optional<fs::path> newest_with_prefix(const fs::path& folder, const std::string& prefix) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().rfind(prefix, 0) == 0) found.push_back(it->path());
  }
  if (found.empty()) return std::nullopt;
  std::sort(found.begin(), found.end());
  return found.back();
}

std::vector<fs::path> candidate_folders(const ProviderSpec& spec) {
  std::vector<fs::path> out;
  if (const auto it = spec.options.find("library"); it != spec.options.end()) {
    return {fs::path(it->second).parent_path()};  // the one place asked for
  }
  for (const auto& entry : ep_path_entries()) {
    std::error_code ec;
    out.push_back(fs::is_regular_file(entry, ec) ? entry.parent_path() : entry);
  }
  if (const auto ort = onnxruntime_folder()) out.push_back(*ort / "ep" / "openvino");
  for (const auto& site : python_site_packages()) out.push_back(site / "openvino" / "libs");
  return out;
}

template <class F>
std::string look_up(void* handle, const char* name, F& slot) {
  void* symbol = dlsym(handle, name);
  if (symbol == nullptr) return std::string("it lacks ") + name;
  slot = reinterpret_cast<F>(symbol);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast): dlsym's result
  return {};
}

std::string resolve(void* handle, Api& a) {
  std::string why;
  const auto need = [&](const char* name, auto& slot) {
    if (why.empty()) why = look_up(handle, name, slot);
  };
  need("ov_get_openvino_version", a.get_version);
  need("ov_version_free", a.version_free);
  need("ov_get_last_err_msg", a.last_error);
  need("ov_get_error_info", a.error_info);
  need("ov_free", a.free_text);
  need("ov_core_create", a.core_create);
  need("ov_core_free", a.core_free);
  need("ov_core_get_available_devices", a.available_devices);
  need("ov_available_devices_free", a.available_devices_free);
  need("ov_core_read_model", a.read_model);
  need("ov_model_free", a.model_free);
  need("ov_core_compile_model_props", a.compile_model);
  need("ov_compiled_model_free", a.compiled_free);
  need("ov_compiled_model_get_property", a.compiled_property);
  need("ov_compiled_model_inputs_size", a.inputs_size);
  need("ov_compiled_model_input_by_index", a.input_by_index);
  need("ov_compiled_model_outputs_size", a.outputs_size);
  need("ov_compiled_model_output_by_index", a.output_by_index);
  need("ov_output_const_port_free", a.port_free);
  need("ov_port_get_any_name", a.port_name);
  need("ov_port_get_element_type", a.port_type);
  need("ov_port_get_partial_shape", a.port_shape);
  need("ov_partial_shape_free", a.partial_shape_free);
  need("ov_compiled_model_create_infer_request", a.create_request);
  need("ov_infer_request_free", a.request_free);
  need("ov_compiled_model_input_by_name", a.input_by_name);
  need("ov_compiled_model_output_by_name", a.output_by_name);
  need("ov_infer_request_set_tensor", a.set_tensor);
  need("ov_infer_request_get_tensor", a.get_tensor);
  need("ov_infer_request_infer", a.infer);
  need("ov_shape_create", a.shape_create);
  need("ov_shape_free", a.shape_free);
  need("ov_tensor_create_from_host_ptr", a.tensor_from_host);
  need("ov_tensor_get_shape", a.tensor_shape);
  need("ov_tensor_get_element_type", a.tensor_type);
  need("ov_tensor_data", a.tensor_data);
  need("ov_tensor_free", a.tensor_free);
  return why;
}

// The entry points once load() has succeeded: every call through api() follows one that did.
std::atomic<const Api*> loaded_api{nullptr};

// Loads the library once per process, from the first candidate folder that has it; a later spec naming another
// place gets the one already loaded. A failure is not kept: a later spec may name a place that has it.
Loaded load(const ProviderSpec& spec) {
  static std::mutex mutex;
  static std::optional<Loaded> loaded;
  const std::lock_guard lock(mutex);
  if (loaded) return *loaded;
  std::string searched;
  std::string failures;
  for (const auto& folder : candidate_folders(spec)) {
    const auto library = newest_with_prefix(folder, "libopenvino_c.so");
    if (!library) {
      searched += (searched.empty() ? "" : ", ") + folder.string();
      continue;
    }
    Loaded out;
    out.library = *library;
    std::string why;
    // The C library links OpenVINO's runtime by its soname, which is beside it, not on the loader's path.
    if (const auto core = newest_with_prefix(folder, "libopenvino.so");
        core && dlopen(core->c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
      const char* error = dlerror();
      why = core->string() + " did not load: " + (error != nullptr ? error : "unknown error");
    } else if (void* handle = dlopen(library->c_str(), RTLD_NOW | RTLD_LOCAL); handle == nullptr) {
      const char* error = dlerror();
      why = library->string() + " did not load: " + (error != nullptr ? error : "unknown error");
    } else if (const std::string missing = resolve(handle, out.api); !missing.empty()) {
      why = library->string() + " is not an OpenVINO C library Sieve can use (2026.4 or later): " + missing;
    }
    if (!why.empty()) {
      // Another place may have a good one.
      failures += (failures.empty() ? "" : "; ") + why;
      continue;
    }
    ov_version_t version{};
    if (out.api.get_version(&version) == OK) {
      // "2026.4.1-22982-e213a147257-releases/2026/4": the release is enough to name it.
      const std::string build = version.buildNumber != nullptr ? version.buildNumber : "";
      out.version = build.substr(0, build.find('-'));
      out.api.version_free(&version);
    }
    loaded = std::move(out);
    loaded_api.store(&loaded->api);
    return *loaded;
  }
  Loaded out;
  out.error = !failures.empty() ? failures
                                : "its C library libopenvino_c.so was not found (install the Python package openvino "
                                  "in the active environment, or give its folder in SIEVE_EP_PATH; searched: " +
                                      searched + ")";
  return out;
}

const Api& api() {
  return *loaded_api.load();
}

// OpenVINO's message for a failed call: its last error (a copy the caller frees; the process shares one, so under
// concurrent failures it may be another call's), else the status code's description.
std::string failure_text(const Api& a, ov_status_e status) {
  std::string text;
  if (const char* message = a.last_error(); message != nullptr) {
    text = message;
    a.free_text(message);
  }
  if (text.empty()) {
    const char* info = a.error_info(status);
    text = info != nullptr ? info : "status " + std::to_string(static_cast<int>(status));
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// Throws Error (`code`) with OpenVINO's own message for a failed call.
void check(ov_status_e status, const std::string& what, ErrorCode code = ErrorCode::kRuntime) {
  if (status == OK) return;
  throw Error(code, "OpenVINO's runtime failed " + what + ": " + failure_text(api(), status));
}

struct CoreFree {
  void operator()(ov_core_t* p) const noexcept { api().core_free(p); }
};
struct ModelFree {
  void operator()(ov_model_t* p) const noexcept { api().model_free(p); }
};
struct CompiledFree {
  void operator()(ov_compiled_model_t* p) const noexcept { api().compiled_free(p); }
};
struct PortFree {
  void operator()(ov_output_const_port_t* p) const noexcept { api().port_free(p); }
};
struct RequestFree {
  void operator()(ov_infer_request_t* p) const noexcept { api().request_free(p); }
};
struct TensorFree {
  void operator()(ov_tensor_t* p) const noexcept { api().tensor_free(p); }
};
using Core = std::unique_ptr<ov_core_t, CoreFree>;
using Model = std::unique_ptr<ov_model_t, ModelFree>;
using Compiled = std::unique_ptr<ov_compiled_model_t, CompiledFree>;
using Port = std::unique_ptr<ov_output_const_port_t, PortFree>;
using Request = std::unique_ptr<ov_infer_request_t, RequestFree>;
using Tensor = std::unique_ptr<ov_tensor_t, TensorFree>;

// An ov_shape_t's dimensions, owned by OpenVINO until freed.
class Shape {
 public:
  Shape() = default;
  explicit Shape(const std::vector<std::int64_t>& dims) {
    check(api().shape_create(static_cast<std::int64_t>(dims.size()), dims.data(), &shape_), "creating a shape");
    owned_ = true;
  }
  Shape(const Shape&) = delete;
  Shape& operator=(const Shape&) = delete;
  ~Shape() {
    if (owned_) api().shape_free(&shape_);
  }
  ov_shape_t* out() {
    owned_ = true;
    return &shape_;
  }
  [[nodiscard]] const ov_shape_t& get() const noexcept { return shape_; }
  [[nodiscard]] std::vector<std::int64_t> dims() const { return {shape_.dims, shape_.dims + shape_.rank}; }

 private:
  ov_shape_t shape_{};
  bool owned_ = false;
};

std::string take_text(char* text) {
  std::string out = text != nullptr ? text : "";
  if (text != nullptr) api().free_text(text);
  return out;
}

ElementType element_type(ov_element_type_e t) {
  switch (t) {
    case F32: return ElementType::kFloat32;
    case F16: return ElementType::kFloat16;
    case I64: return ElementType::kInt64;
    case I32: return ElementType::kInt32;
    default: return ElementType::kOther;
  }
}

TensorSpec describe(const ov_output_const_port_t* port) {
  TensorSpec spec;
  char* name = nullptr;
  check(api().port_name(port, &name), "reading a tensor's name");
  spec.name = take_text(name);
  ov_element_type_e type{};
  check(api().port_type(port, &type), "reading a tensor's type");
  spec.type = element_type(type);
  ov_partial_shape_t shape{};
  check(api().port_shape(port, &shape), "reading a tensor's shape");
  if (shape.rank.min == shape.rank.max && shape.rank.min >= 0) {
    for (std::int64_t i = 0; i < shape.rank.min; ++i) {
      const ov_dimension_t d = shape.dims[i];
      spec.shape.push_back(d.min == d.max ? d.min : -1);
    }
  }
  api().partial_shape_free(&shape);
  return spec;
}

// The calling thread's alternate signal stack, put back as it was when the object goes. OpenVINO's runtime installs
// one of its own (about 11 KiB) on a thread that calls it and leaves it there; a host that keeps its own there (the
// Go runtime does, on every thread running Go code, and checks it in its signal handler) then takes its signals on
// OpenVINO's stack and breaks (seen in Go as crashes after goroutine preemption signals).
class SignalStackKept {
 public:
  SignalStackKept() noexcept { kept_ = sigaltstack(nullptr, &saved_) == 0; }
  SignalStackKept(const SignalStackKept&) = delete;
  SignalStackKept& operator=(const SignalStackKept&) = delete;
  ~SignalStackKept() {
    if (!kept_) return;
    stack_t now{};
    if (sigaltstack(nullptr, &now) == 0 &&
        (now.ss_sp != saved_.ss_sp || now.ss_size != saved_.ss_size || now.ss_flags != saved_.ss_flags)) {
      // SS_ONSTACK is a state, not a flag sigaltstack() takes.
      stack_t restore = saved_;
      restore.ss_flags &= ~SS_ONSTACK;
      (void)sigaltstack(&restore, nullptr);
    }
  }

 private:
  stack_t saved_{};
  bool kept_ = false;
};

float bfloat16_to_float(std::uint16_t bits) noexcept {
  const std::uint32_t widened = static_cast<std::uint32_t>(bits) << 16U;
  float out = 0;
  std::memcpy(&out, &widened, sizeof out);
  return out;
}

// The devices `core` offers ("CPU", "GPU.0", ...).
std::vector<std::string> device_names(const Api& a, const ov_core_t* core) {
  std::vector<std::string> out;
  ov_available_devices_t devices{};
  if (a.available_devices(core, &devices) == OK) {
    for (std::size_t i = 0; i < devices.size; ++i) out.emplace_back(devices.devices[i]);
    a.available_devices_free(&devices);
  }
  return out;
}

}  // namespace

OpenVinoRuntimeInfo openvino_runtime_info(const ProviderSpec& spec) {
  const SignalStackKept stack;
  const Loaded l = load(spec);
  OpenVinoRuntimeInfo info{l.library.string(), l.version, {}, l.error};
  if (!l.error.empty()) return info;
  ov_core_t* raw = nullptr;
  if (const ov_status_e status = l.api.core_create(&raw); status != OK) {
    info.error = "its core did not start: " + failure_text(l.api, status);
    return info;
  }
  const Core core(raw);
  info.devices = device_names(l.api, core.get());
  if (info.devices.empty()) info.error = "it offers no device on this machine";
  return info;
}

struct OpenVinoGraph::State {
  Core core;
  Compiled compiled;
  std::mutex mutex;
  std::vector<Request> idle;  // infer requests between runs
};

OpenVinoGraph::OpenVinoGraph(const fs::path& model, const ProviderSpec& spec, int threads, const GraphNames& file_names)
    : state_(std::make_unique<State>()) {
  const SignalStackKept stack;
  const OpenVinoOptions options = openvino_options("openvino", spec);
  const Loaded runtime = load(spec);
  if (!runtime.error.empty()) {
    throw Error(ErrorCode::kUnsupported, "OpenVINO's runtime is unavailable: " + runtime.error);
  }
  ov_core_t* core = nullptr;
  check(api().core_create(&core), "starting");
  state_->core.reset(core);
  const std::vector<std::string> devices = device_names(api(), core);
  if (std::find(devices.begin(), devices.end(), options.device) == devices.end()) {
    std::string offered;
    for (const auto& d : devices) offered += (offered.empty() ? "" : ", ") + d;
    throw Error(ErrorCode::kInvalidArgument, "openvino option device=" + options.device + ": this machine offers " +
                                                 (offered.empty() ? std::string("no device") : offered) +
                                                 " (OpenVINO's runtime)");
  }
  ov_model_t* read = nullptr;
  check(api().read_model(core, model.c_str(), nullptr, &read), "reading " + model.string(), ErrorCode::kUnsupported);
  const Model source(read);

  // threads=0, like --threads 0, is the session's default.
  threads_ = options.threads.value_or(0) > 0 ? *options.threads : threads;
  const std::string thread_text = std::to_string(threads_);
  std::vector<ov_property_t> properties = {{"PERFORMANCE_HINT", "LATENCY"}};
  if (threads_ > 0) properties.push_back({"INFERENCE_NUM_THREADS", thread_text.c_str()});
  if (options.precision == "accuracy") {
    properties.push_back({"EXECUTION_MODE_HINT", "ACCURACY"});
  } else if (options.precision) {
    properties.push_back({"INFERENCE_PRECISION_HINT", options.precision->c_str()});
  }
  if (options.cache_dir) properties.push_back({"CACHE_DIR", options.cache_dir->c_str()});
  ov_compiled_model_t* compiled = nullptr;
  check(
      api().compile_model(core, source.get(), options.device.c_str(), properties.size(), properties.data(), &compiled),
      "compiling " + model.string() + " for " + options.device, ErrorCode::kUnsupported);
  state_->compiled.reset(compiled);

  const auto read_ports = [&](auto size_of, auto port_at, std::vector<TensorSpec>& specs, const char* what) {
    std::size_t count = 0;
    check(size_of(compiled, &count), std::string("counting the graph's ") + what);
    for (std::size_t i = 0; i < count; ++i) {
      ov_output_const_port_t* raw_port = nullptr;
      check(port_at(compiled, i, &raw_port), std::string("reading the graph's ") + what);
      const Port port(raw_port);
      specs.push_back(describe(port.get()));
    }
  };
  read_ports(api().inputs_size, api().input_by_index, inputs_, "inputs");
  read_ports(api().outputs_size, api().output_by_index, outputs_, "outputs");
  // A tensor may have several names (an output behind an Identity node keeps both), and OpenVINO gives one of
  // them: the ONNX file's own names, where known, are looked up instead and kept, in the file's order.
  const auto by_names = [&](auto port_named, const std::vector<std::string>& names, std::vector<TensorSpec>& specs,
                            const char* what) {
    if (names.empty()) return;
    if (names.size() != specs.size()) {
      throw Error(ErrorCode::kUnsupported, "OpenVINO's runtime reads " + std::to_string(specs.size()) + " " + what +
                                               " of " + model.string() + ", the file declares " +
                                               std::to_string(names.size()));
    }
    std::vector<TensorSpec> named;
    for (const auto& name : names) {
      ov_output_const_port_t* raw_port = nullptr;
      check(port_named(compiled, name.c_str(), &raw_port),
            std::string("finding the graph's ") + what + " \"" + name + "\"", ErrorCode::kUnsupported);
      const Port port(raw_port);
      TensorSpec found = describe(port.get());
      found.name = name;
      named.push_back(std::move(found));
    }
    specs = std::move(named);
  };
  by_names(api().input_by_name, file_names.inputs, inputs_, "inputs");
  by_names(api().output_by_name, file_names.outputs, outputs_, "outputs");

  char* precision = nullptr;
  const std::string compiled_precision =
      api().compiled_property(compiled, "INFERENCE_PRECISION_HINT", &precision) == OK ? take_text(precision) : "";
  description_ = "OpenVINO runtime " + runtime.version + " on " + options.device +
                 (compiled_precision.empty() ? std::string() : " at " + compiled_precision);
  if (options.precision && *options.precision != "accuracy" && !compiled_precision.empty() &&
      compiled_precision != *options.precision) {
    logger().warn("openvino option precision={}: {} compiled {} at {} instead (the device's choice)",
                  *options.precision, "OpenVINO's runtime", model.string(), compiled_precision);
  }
}

OpenVinoGraph::~OpenVinoGraph() = default;

FloatOutput OpenVinoGraph::run(std::span<const Int64Input> inputs, std::size_t output_index) const {
  const SignalStackKept stack;
  Request request;
  {
    const std::lock_guard lock(state_->mutex);
    if (!state_->idle.empty()) {
      request = std::move(state_->idle.back());
      state_->idle.pop_back();
    }
  }
  if (!request) {
    ov_infer_request_t* raw = nullptr;
    check(api().create_request(state_->compiled.get(), &raw), "creating an infer request");
    request.reset(raw);
  }
  // Copies for graphs that take int32 ids, and the tensors over the caller's buffers, kept until the run ends.
  std::vector<std::vector<std::int32_t> > narrowed;
  narrowed.reserve(inputs.size());
  std::vector<Tensor> tensors;
  for (const auto& input : inputs) {
    std::size_t elements = 1;
    for (const auto d : input.shape) elements *= static_cast<std::size_t>(d);
    const Shape shape(input.shape);
    ov_tensor_t* tensor = nullptr;
    if (inputs_.at(input.input_index).type == ElementType::kInt32) {
      auto& copy = narrowed.emplace_back(input.data, input.data + elements);  // ids and masks are far below 2^31
      check(api().tensor_from_host(I32, shape.get(), copy.data(), &tensor), "creating an input tensor");
    } else {
      // OpenVINO reads the buffer in place and never writes it.
      check(api().tensor_from_host(I64, shape.get(), const_cast<std::int64_t*>(input.data), &tensor),
            "creating an input tensor");
    }
    tensors.emplace_back(tensor);
    check(api().set_tensor(request.get(), inputs_.at(input.input_index).name.c_str(), tensor), "setting an input");
  }
  check(api().infer(request.get()), "running the model");
  ov_tensor_t* raw_output = nullptr;
  check(api().get_tensor(request.get(), outputs_.at(output_index).name.c_str(), &raw_output), "reading the output");
  const Tensor output(raw_output);
  Shape shape;
  check(api().tensor_shape(output.get(), shape.out()), "reading the output shape");
  std::vector<std::int64_t> dims = shape.dims();
  ov_element_type_e type{};
  check(api().tensor_type(output.get(), &type), "reading the output type");
  void* data = nullptr;
  check(api().tensor_data(output.get(), &data), "reading the output data");
  std::size_t elements = 1;
  for (const auto d : dims) elements *= static_cast<std::size_t>(d);
  std::vector<float> values(elements);
  if (type == F32) {
    std::memcpy(values.data(), data, elements * sizeof(float));
  } else if (type == F16 || type == BF16) {
    const auto* halves = static_cast<const std::uint16_t*>(data);
    for (std::size_t i = 0; i < elements; ++i) {
      values[i] = type == F16 ? half_to_float(halves[i]) : bfloat16_to_float(halves[i]);
    }
  } else {
    throw Error(ErrorCode::kUnsupported, "output \"" + outputs_.at(output_index).name + "\" is not a float tensor");
  }
  {
    const std::lock_guard lock(state_->mutex);
    state_->idle.push_back(std::move(request));
  }
  return FloatOutput(std::move(values), std::move(dims));
}

#endif

}  // namespace sieve::runtime
