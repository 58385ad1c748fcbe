#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <span>
#include <type_traits>
#include <vector>

#include "model/onnx_summary.hpp"
#include "pipeline/model_inputs.hpp"
#include "runtime/session.hpp"
#include "sieve/embedder.hpp"
#include "sieve/tokenizer.hpp"

namespace sieve::pipeline {

// One run's output and the padded batch it came from.
struct RunOutput {
  runtime::FloatOutput output;
  std::size_t rows = 0;            // inputs in the batch
  std::size_t sequence = 0;        // tokens per row after padding
  std::vector<std::int64_t> mask;  // the attention mask fed to the graph, [rows x sequence]
};

// The graph's input and output names as the ONNX file declares them, for the session.
runtime::GraphNames graph_names(const model::OnnxSummary& summary);

// Where a model's encodings meet its ONNX Runtime session, for every model type: it owns the session and where each
// input goes, fills a batch's padded tensors and runs it. Its heads turn the output into vectors, weights or scores.
// Runs are thread-safe.
class Runner {
 public:
  // The session, and the graph's inputs found in it (an input Sieve cannot fill is an Error naming `onnx`).
  Runner(runtime::Session session, const std::filesystem::path& onnx);

  [[nodiscard]] const runtime::Session& session() const noexcept { return session_; }
  [[nodiscard]] const InputSlots& slots() const noexcept { return slots_; }

  // One ORT run over `encodings`, in their order, padded to the longest, reading output `output`, whose first axis
  // must be the batch's rows (and, with `per_token`, its second axis the padded length). `timings` (may be null)
  // gets the tokens, padding, the time spent filling the tensors and inside ORT, and one batch.
  [[nodiscard]] RunOutput run(std::span<const Encoding* const> encodings, std::size_t output, bool per_token,
                              EmbedTimings* timings) const;

  // What ModelInfo says of the session: the graph's inputs and outputs, the providers and threads in use, ONNX
  // Runtime's version and the graph's fused operators.
  void describe(ModelInfo& info) const;

 private:
  runtime::Session session_;
  InputSlots slots_;
};

// Cuts inputs of the given token counts into length-sorted batches (plan_batches(): at most `batch_size` inputs, cut
// before padding would outgrow the real tokens) and calls `batch` with each one's input indices, in the batch's
// order. The one batching loop of every model type.
void for_each_batch(const std::vector<std::size_t>& lengths, std::size_t batch_size,
                    const std::function<void(std::span<const std::size_t>)>& batch);

// The encodings of inputs that carry one (EncodedText, TokenInput), in their order.
template <typename Input>
std::vector<const Encoding*> encodings_of(std::span<const Input* const> inputs) {
  std::vector<const Encoding*> encodings;
  encodings.reserve(inputs.size());
  for (const Input* input : inputs) encodings.push_back(&input->encoding);
  return encodings;
}

// Runs `inputs` (each with an `encoding`) in the batches for_each_batch() cuts: `run` maps one batch, pointers to its
// inputs in the batch's order, to a result per input; the results come back in input order.
template <typename Input, typename Run>
auto run_in_batches(const std::vector<Input>& inputs, std::size_t batch_size, Run run) {
  using Result = typename std::invoke_result_t<Run, std::span<const Input* const>>::value_type;
  std::vector<std::size_t> lengths;
  lengths.reserve(inputs.size());
  for (const Input& input : inputs) lengths.push_back(input.encoding.size());
  std::vector<Result> results(inputs.size());
  std::vector<const Input*> batch;
  for_each_batch(lengths, batch_size, [&](std::span<const std::size_t> rows) {
    batch.clear();
    for (const std::size_t i : rows) batch.push_back(&inputs[i]);
    std::vector<Result> got = run(std::span<const Input* const>(batch));
    for (std::size_t row = 0; row < rows.size(); ++row) results[rows[row]] = std::move(got[row]);
  });
  return results;
}

}  // namespace sieve::pipeline
