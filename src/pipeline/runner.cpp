#include "pipeline/runner.hpp"

#include <chrono>
#include <string>

#include "logging.hpp"
#include "model/accuracy_record.hpp"
#include "model/graph_fusion.hpp"
#include "model/onnx_summary.hpp"
#include "pipeline/batching.hpp"
#include "runtime/environment.hpp"
#include "sieve/error.hpp"

namespace sieve::pipeline {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

runtime::GraphNames graph_names(const model::OnnxSummary& summary) {
  runtime::GraphNames names;
  for (const auto& t : summary.inputs) names.inputs.push_back(t.name);
  for (const auto& t : summary.outputs) names.outputs.push_back(t.name);
  return names;
}

Runner::Runner(runtime::Session session, const std::filesystem::path& onnx)
    : session_(std::move(session)), slots_(find_encoder_inputs(session_.inputs(), onnx)) {}

RunOutput Runner::run(std::span<const Encoding* const> encodings, std::size_t output, bool per_token,
                      EmbedTimings* timings) const {
  EmbedTimings local;
  EmbedTimings& t = timings != nullptr ? *timings : local;
  auto start = Clock::now();
  BatchTensors tensors;
  tensors.fill(encodings, slots_);
  const std::size_t rows = encodings.size();
  const auto sequence = static_cast<std::size_t>(tensors.shape[1]);
  for (const Encoding* e : encodings) t.tokens += e->size();
  t.padded_tokens += rows * sequence;
  t.prepare_seconds += seconds_since(start);

  start = Clock::now();
  runtime::FloatOutput out = session_.run(tensors.inputs(slots_), output);
  t.run_seconds += seconds_since(start);
  ++t.batches;
  const auto& s = out.shape();
  if (s.size() < 2 || s[0] != tensors.shape[0] || (per_token && s[1] != tensors.shape[1])) {
    throw Error(ErrorCode::kRuntime, "model output \"" + session_.outputs()[output].name + "\" has shape " +
                                         shape_text(s) + " for an input of shape " + shape_text(tensors.shape));
  }
  return {std::move(out), rows, sequence, std::move(tensors.mask)};
}

void Runner::describe(ModelInfo& info) const {
  for (const auto& in : session_.inputs()) info.inputs.push_back({in.name, type_name(in.type), in.shape});
  for (const auto& o : session_.outputs()) info.outputs.push_back({o.name, type_name(o.type), o.shape});
  info.providers = session_.providers();
  info.partition = session_.partition();
  for (auto& p : info.partition) {
    if (p.engine.empty() || p.nodes > 0) continue;
    // A runtime that took the ONNX file whole: its nodes are the file's.
    try {
      for (const auto& [op, count] : model::read_onnx_summary(info.onnx_file).operators) {
        p.operators[op] += static_cast<std::size_t>(count);
        p.nodes += static_cast<std::size_t>(count);
      }
    } catch (const Error&) {
      // The runtime read the file; a summary it cannot give leaves the count unknown (0).
    }
  }
  info.intra_op_threads = session_.intra_op_threads();
  info.onnxruntime_version = runtime::onnxruntime_version();
  auto fusion = model::describe_fusion(info.onnx_file);
  info.fused_operators = std::move(fusion.fused);
  info.fusion_note = std::move(fusion.unfused);
  if (const auto record = model::read_accuracy_record(info.folder)) {
    info.recorded_accuracy = record->summary;
    info.accuracy_below_threshold = !record->passed;
    if (!record->passed) {
      logger().warn("{} was written below its accuracy threshold: {}", info.folder.string(), record->summary);
    }
  }
}

void for_each_batch(const std::vector<std::size_t>& lengths, std::size_t batch_size,
                    const std::function<void(std::span<const std::size_t>)>& batch) {
  const BatchPlan plan = plan_batches(lengths, batch_size);
  for (const auto& [begin, end] : plan.batches)
    batch(std::span<const std::size_t>(plan.order).subspan(begin, end - begin));
}

}  // namespace sieve::pipeline
