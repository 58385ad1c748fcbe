#include "runtime/session.hpp"

#include "logging.hpp"

#include <algorithm>
#include <fstream>

#include "runtime/environment.hpp"
#include "runtime/openvino_runtime.hpp"
#include "runtime/ort_api.hpp"
#include "runtime/plugin_providers.hpp"
#include "runtime/providers.hpp"
#include "sieve/error.hpp"
#include "sieve/quantize.hpp"
#include "sieve/text.hpp"

namespace sieve::runtime {
namespace {

ElementType element_type(ONNXTensorElementDataType t) {
  switch (t) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT: return ElementType::kFloat32;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16: return ElementType::kFloat16;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64: return ElementType::kInt64;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32: return ElementType::kInt32;
    default: return ElementType::kOther;
  }
}

TensorSpec describe(OrtTypeInfo* raw_info, std::string name) {
  const OrtPtr<OrtTypeInfo> info(raw_info);
  TensorSpec spec;
  spec.name = std::move(name);
  const OrtTensorTypeAndShapeInfo* tensor = nullptr;
  check(ort().CastTypeInfoToTensorInfo(info.get(), &tensor), "reading a tensor type");
  if (tensor == nullptr) return spec;  // not a tensor (sequence, map): kOther, no shape
  ONNXTensorElementDataType type{};
  check(ort().GetTensorElementType(tensor, &type), "reading an element type");
  spec.type = element_type(type);
  std::size_t rank = 0;
  check(ort().GetDimensionsCount(tensor, &rank), "reading a tensor rank");
  spec.shape.resize(rank);
  check(ort().GetDimensions(tensor, spec.shape.data(), rank), "reading a tensor shape");
  return spec;
}

std::string take_name(char* raw, OrtAllocator* allocator) {
  std::string name = raw;
  check(ort().AllocatorFree(allocator, raw), "freeing a name");
  return name;
}

GraphOptimizationLevel ort_level(GraphOptimization level) {
  switch (level) {
    case GraphOptimization::kDisabled: return ORT_DISABLE_ALL;
    case GraphOptimization::kBasic: return ORT_ENABLE_BASIC;
    case GraphOptimization::kExtended: return ORT_ENABLE_EXTENDED;
    case GraphOptimization::kAll: return ORT_ENABLE_ALL;
  }
  return ORT_ENABLE_ALL;
}

// Nodes per provider, from ONNX Runtime's record of where it placed them (the session must be created with
// "session.record_ep_graph_assignment_info"), ordered as `providers`.
std::vector<ProviderNodes> read_partition(const OrtSession* session, const std::vector<std::string>& providers) {
  const OrtEpAssignedSubgraph* const* subgraphs = nullptr;
  std::size_t count = 0;
  check(ort().Session_GetEpGraphAssignmentInfo(session, &subgraphs, &count), "reading the graph's placement");
  std::vector<ProviderNodes> out;
  for (const auto& p : providers) out.push_back({p, 0, 0, {}, {}});
  for (std::size_t i = 0; i < count; ++i) {
    const char* ep = nullptr;
    check(ort().EpAssignedSubgraph_GetEpName(subgraphs[i], &ep), "reading a subgraph's provider");
    const std::string name = provider_name(ep != nullptr ? ep : "");
    auto it = std::find_if(out.begin(), out.end(), [&](const ProviderNodes& p) { return p.provider == name; });
    if (it == out.end()) it = out.insert(out.end(), {name, 0, 0, {}, {}});
    const OrtEpAssignedNode* const* nodes = nullptr;
    std::size_t node_count = 0;
    check(ort().EpAssignedSubgraph_GetNodes(subgraphs[i], &nodes, &node_count), "reading a subgraph's nodes");
    ++it->subgraphs;
    it->nodes += node_count;
    for (std::size_t n = 0; n < node_count; ++n) {
      const char* op = nullptr;
      check(ort().EpAssignedNode_GetOperatorType(nodes[n], &op), "reading a node's operator");
      ++it->operators[op != nullptr ? op : "?"];
    }
  }
  return out;
}

// OpenVINO's own runtime for the whole graph, where OpenVINO is the first provider asked for and ONNX Runtime
// takes it neither built in nor through its plugin (which offers devices on Intel hardware only). Null where the
// plugin can, or where OpenVINO's runtime cannot either (said in a warning; the providers then go on as ever:
// skipped, or refused when strict).
std::unique_ptr<OpenVinoGraph> openvino_graph_for(OrtEnv* env, const std::filesystem::path& model,
                                                  const RuntimeOptions& options, int threads, const GraphNames& names) {
  if (options.providers.empty() || options.providers.front().name != "openvino") return nullptr;
  const ProviderSpec& spec = options.providers.front();
  const auto built_in = available_providers();
  if (std::find(built_in.begin(), built_in.end(), "openvino") != built_in.end()) return nullptr;
  const PluginProvider* plugin = find_plugin_provider("openvino");
  if (plugin == nullptr) return nullptr;
  check_plugin_options(*plugin, spec);
  std::string plugin_why;
  try {
    register_plugin(env, *plugin, spec);
    return nullptr;
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kInvalidArgument) throw;
    plugin_why = e.what();
  }
  try {
    auto graph = std::make_unique<OpenVinoGraph>(model, spec, threads, names);
    logger().info("ONNX Runtime's OpenVINO plugin cannot run here ({}); {} runs the whole graph", plugin_why,
                  graph->description());
    return graph;
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kInvalidArgument) throw;
    logger().warn("OpenVINO's runtime cannot run {} either: {}", model.string(), e.what());
    return nullptr;
  }
}

}  // namespace

struct Session::State {
  std::unique_ptr<OpenVinoGraph> openvino;  // set: OpenVINO's runtime runs the whole graph, no ONNX Runtime session
  OrtPtr<OrtSession> session;
  OrtPtr<OrtMemoryInfo> cpu_memory;
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
};

FloatOutput::FloatOutput(OrtValue* value, const float* data, std::vector<std::int64_t> shape)
    : value_(value), data_(data), shape_(std::move(shape)) {}
FloatOutput::FloatOutput(std::vector<float> converted, std::vector<std::int64_t> shape)
    : value_(nullptr), data_(converted.data()), shape_(std::move(shape)), converted_(std::move(converted)) {}
FloatOutput::FloatOutput(FloatOutput&& other) noexcept
    : value_(std::exchange(other.value_, nullptr)),
      data_(other.data_),
      shape_(std::move(other.shape_)),
      converted_(std::move(other.converted_)) {}
FloatOutput& FloatOutput::operator=(FloatOutput&& other) noexcept {
  if (this != &other) {
    if (value_ != nullptr) ort().ReleaseValue(value_);
    value_ = std::exchange(other.value_, nullptr);
    data_ = other.data_;
    shape_ = std::move(other.shape_);
    converted_ = std::move(other.converted_);
  }
  return *this;
}
FloatOutput::~FloatOutput() {
  if (value_ != nullptr) ort().ReleaseValue(value_);
}

Session::Session(const std::filesystem::path& model, const RuntimeOptions& options, const GraphNames& file_names)
    : state_(std::make_unique<State>()) {
  if (!std::filesystem::is_regular_file(model)) {
    throw Error(ErrorCode::kNotFound, model.string() + ": model file not found");
  }
  OrtSessionOptions* raw_options = nullptr;
  check(ort().CreateSessionOptions(&raw_options), "creating session options");
  const OrtPtr<OrtSessionOptions> session_options(raw_options);

  // Every entry point checks its thread counts; this is the last line for callers of the C++ API.
  check_thread_count(std::max(0, options.intra_op_threads), "intra_op_threads");
  check_thread_count(std::max(0, options.inter_op_threads), "inter_op_threads");
  OrtEnv* env = nullptr;
  if (options.shared_thread_pool) {
    // The process-wide pools replace the session's own: several models then
    // share the cores instead of each starting one thread per core.
    env = environment_with_shared_pool(options.intra_op_threads, options.inter_op_threads);
    check(ort().DisablePerSessionThreads(session_options.get()), "disabling per-session threads");
    intra_op_threads_ = shared_pool_threads();
  } else {
    env = environment();
    intra_op_threads_ = options.intra_op_threads > 0 ? options.intra_op_threads : physical_core_count();
    check(ort().SetIntraOpNumThreads(session_options.get(), intra_op_threads_), "setting intra-op threads");
    check(ort().SetInterOpNumThreads(session_options.get(), std::max(1, options.inter_op_threads)),
          "setting inter-op threads");
    check(ort().AddSessionConfigEntry(session_options.get(), "session.intra_op.allow_spinning",
                                      options.spinning ? "1" : "0"),
          "setting intra-op spinning");
  }
  check(ort().SetSessionGraphOptimizationLevel(session_options.get(), ort_level(options.graph_optimization)),
        "setting the optimization level");
  check(options.memory_pattern ? ort().EnableMemPattern(session_options.get())
                               : ort().DisableMemPattern(session_options.get()),
        "setting memory patterns");
  check(options.cpu_arena ? ort().EnableCpuMemArena(session_options.get())
                          : ort().DisableCpuMemArena(session_options.get()),
        "setting the CPU arena");
  if (auto graph = openvino_graph_for(env, model, options, intra_op_threads_, file_names)) {
    inputs_ = graph->inputs();
    outputs_ = graph->outputs();
    intra_op_threads_ = graph->threads();
    providers_ = {"openvino", "cpu"};
    partition_ = {{"openvino", 0, 1, {}, graph->description()}, {"cpu", 0, 0, {}, {}}};
    logger().info("session for {} uses providers [openvino, cpu] with {} intra-op threads; {}", model.string(),
                  intra_op_threads_, describe_nodes(partition_.front()));
    state_->openvino = std::move(graph);
    return;
  }
  providers_ = append_providers(env, session_options.get(), options, intra_op_threads_);
  if (providers_ == std::vector<std::string>{"cpu"}) {
    // ONNX Runtime fuses Add + LayerNormalization into SkipLayerNormalization
    // at load time; on CPUs that kernel is slower than the two it replaces
    // (INT8 models about 14% slower end to end, bench/RESULTS.md), so CPU
    // sessions keep them apart. Graphs fused offline are left as they are.
    check(ort().AddSessionConfigEntry(session_options.get(), "optimization.disable_specified_optimizers",
                                      "SkipLayerNormFusion"),
          "disabling the SkipLayerNormalization fusion");
  }

  check(ort().AddSessionConfigEntry(session_options.get(), "session.record_ep_graph_assignment_info", "1"),
        "recording where the graph's nodes run");

  OrtSession* raw_session = nullptr;
  check(ort().CreateSession(env, model.c_str(), session_options.get(), &raw_session),
        ("loading " + model.string()).c_str());
  state_->session.reset(raw_session);
  partition_ = read_partition(raw_session, providers_);

  OrtMemoryInfo* memory = nullptr;
  check(ort().CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &memory), "creating CPU memory info");
  state_->cpu_memory.reset(memory);

  OrtAllocator* allocator = nullptr;
  check(ort().GetAllocatorWithDefaultOptions(&allocator), "getting the default allocator");
  // Inputs and outputs are read the same way through their own ORT calls.
  const auto read_specs = [&](auto get_count, auto get_name, auto get_type, const char* what,
                              std::vector<TensorSpec>& specs, std::vector<std::string>& names) {
    std::size_t count = 0;
    check(get_count(raw_session, &count), (std::string("counting ") + what).c_str());
    for (std::size_t i = 0; i < count; ++i) {
      char* name = nullptr;
      check(get_name(raw_session, i, allocator, &name), (std::string("reading the name of ") + what).c_str());
      std::string owned = take_name(name, allocator);
      OrtTypeInfo* info = nullptr;
      check(get_type(raw_session, i, &info), (std::string("reading the type of ") + what).c_str());
      specs.push_back(describe(info, owned));
      names.push_back(std::move(owned));
    }
  };
  read_specs(ort().SessionGetInputCount, ort().SessionGetInputName, ort().SessionGetInputTypeInfo, "inputs", inputs_,
             state_->input_names);
  read_specs(ort().SessionGetOutputCount, ort().SessionGetOutputName, ort().SessionGetOutputTypeInfo, "outputs",
             outputs_, state_->output_names);
  // Where several providers share the graph, the log says which runs what.
  logger().info("session for {} uses providers [{}] with {} intra-op threads{}", model.string(), join(providers_, ", "),
                intra_op_threads_,
                providers_.size() > 1 ? "; " + join(partition_, "; ", describe_nodes) : std::string());
  // A graph split between providers copies tensors at every border, and a provider that took nothing is not
  // in use at all: both are said, never left to a benchmark to find.
  const auto on_cpu =
      std::find_if(partition_.begin(), partition_.end(), [](const ProviderNodes& p) { return p.provider == "cpu"; });
  for (const auto& p : partition_) {
    if (p.provider == "cpu") continue;
    if (p.nodes == 0) {
      logger().warn("execution provider {} took none of the nodes of {}: the whole graph runs on the CPU provider",
                    p.provider, model.string());
    } else if (on_cpu != partition_.end() && on_cpu->nodes > 0) {
      logger().warn("the graph of {} is split: {}; {} (the operators {} does not take)", model.string(),
                    describe_nodes(p), describe_nodes(*on_cpu), p.provider);
    }
  }
}

Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;
Session::~Session() = default;

FloatOutput Session::run(std::span<const Int64Input> inputs, std::size_t output_index) const {
  if (state_->openvino) return state_->openvino->run(inputs, output_index);
  std::vector<OrtPtr<OrtValue>> values;
  std::vector<const OrtValue*> value_ptrs;
  std::vector<const char*> names;
  // Copies for graphs that take int32 ids; kept alive until the run ends.
  std::vector<std::vector<std::int32_t>> narrowed;
  values.reserve(inputs.size());
  narrowed.reserve(inputs.size());
  for (const auto& input : inputs) {
    std::size_t elements = 1;
    for (const auto d : input.shape) elements *= static_cast<std::size_t>(d);
    OrtValue* value = nullptr;
    if (inputs_.at(input.input_index).type == ElementType::kInt32) {
      // Token ids, masks and positions are far below 2^31.
      auto& copy = narrowed.emplace_back(input.data, input.data + elements);
      check(ort().CreateTensorWithDataAsOrtValue(state_->cpu_memory.get(), copy.data(), elements * sizeof(std::int32_t),
                                                 input.shape.data(), input.shape.size(),
                                                 ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32, &value),
            "creating an input tensor");
    } else {
      // ORT reads the buffer in place; the const_cast is safe because inputs
      // are never written.
      check(ort().CreateTensorWithDataAsOrtValue(state_->cpu_memory.get(), const_cast<std::int64_t*>(input.data),
                                                 elements * sizeof(std::int64_t), input.shape.data(),
                                                 input.shape.size(), ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, &value),
            "creating an input tensor");
    }
    values.emplace_back(value);
    value_ptrs.push_back(value);
    names.push_back(state_->input_names.at(input.input_index).c_str());
  }
  const char* output_name = state_->output_names.at(output_index).c_str();
  OrtValue* output = nullptr;
  check(ort().Run(state_->session.get(), nullptr, names.data(), value_ptrs.data(), value_ptrs.size(), &output_name, 1,
                  &output),
        "running the model");
  OrtPtr<OrtValue> owned(output);
  OrtTensorTypeAndShapeInfo* raw_info = nullptr;
  check(ort().GetTensorTypeAndShape(output, &raw_info), "reading the output shape");
  const OrtPtr<OrtTensorTypeAndShapeInfo> info(raw_info);
  ONNXTensorElementDataType type{};
  check(ort().GetTensorElementType(info.get(), &type), "reading the output type");
  if (type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT && type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16) {
    throw Error(ErrorCode::kUnsupported,
                "output \"" + state_->output_names[output_index] + "\" is neither float32 nor float16");
  }
  std::size_t rank = 0;
  check(ort().GetDimensionsCount(info.get(), &rank), "reading the output rank");
  std::vector<std::int64_t> shape(rank);
  check(ort().GetDimensions(info.get(), shape.data(), rank), "reading the output dimensions");
  void* data = nullptr;
  check(ort().GetTensorMutableData(output, &data), "reading the output data");
  if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16) {
    std::size_t elements = 1;
    for (const auto d : shape) elements *= static_cast<std::size_t>(d);
    const auto* halves = static_cast<const std::uint16_t*>(data);
    std::vector<float> converted(elements);
    for (std::size_t i = 0; i < elements; ++i) converted[i] = half_to_float(halves[i]);
    return FloatOutput(std::move(converted), std::move(shape));
  }
  return FloatOutput(owned.release(), static_cast<const float*>(data), std::move(shape));
}

}  // namespace sieve::runtime
