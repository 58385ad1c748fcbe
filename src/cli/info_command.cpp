#include <nlohmann/json.hpp>

#include <iostream>

#include "cli/commands.hpp"
#include "sieve/error.hpp"

namespace sieve::cli {
namespace {

struct InfoArgs {
  ModelOptions model;
  bool json = false;
};

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
  return out + "]";
}

int run_info(const InfoArgs& args) {
  EmbedderOptions options;
  options.runtime = to_runtime_options(args.model);
  const Embedder embedder = Embedder::load(args.model.model, options);
  const ModelInfo& info = embedder.info();
  if (args.json) {
    nlohmann::json doc;
    doc["folder"] = info.folder.string();
    doc["onnx_file"] = info.onnx_file.string();
    for (const auto& t : info.inputs) doc["inputs"].push_back({{"name", t.name}, {"type", t.type}, {"shape", t.shape}});
    for (const auto& t : info.outputs)
      doc["outputs"].push_back({{"name", t.name}, {"type", t.type}, {"shape", t.shape}});
    doc["output"] = info.output;
    doc["pooling"] = info.pooled_by_model ? "model" : to_string(info.pooling);
    doc["normalize"] = info.normalize;
    doc["max_length"] = info.max_length;
    doc["dimension"] = info.dimension;
    doc["providers"] = info.providers;
    doc["intra_op_threads"] = info.intra_op_threads;
    doc["onnxruntime_version"] = info.onnxruntime_version;
    doc["vocab_size"] = embedder.tokenizer().vocab_size();
    std::cout << doc.dump(2) << '\n';
    return 0;
  }
  std::cout << "model:       " << info.folder.string() << '\n' << "onnx file:   " << info.onnx_file.string() << '\n';
  for (const auto& t : info.inputs)
    std::cout << "input:       " << t.name << " " << t.type << shape_text(t.shape) << '\n';
  for (const auto& t : info.outputs) {
    std::cout << "output:      " << t.name << " " << t.type << shape_text(t.shape)
              << (t.name == info.output ? "  (used)" : "") << '\n';
  }
  std::cout << "pooling:     " << (info.pooled_by_model ? "done by the model" : to_string(info.pooling)) << '\n'
            << "normalize:   " << (info.normalize ? "yes (L2)" : "no") << '\n'
            << "max length:  " << info.max_length << " tokens\n"
            << "dimension:   " << info.dimension << '\n'
            << "vocabulary:  " << embedder.tokenizer().vocab_size() << " tokens\n"
            << "providers:   ";
  for (std::size_t i = 0; i < info.providers.size(); ++i) std::cout << (i ? ", " : "") << info.providers[i];
  std::cout << '\n'
            << "threads:     " << info.intra_op_threads << " intra-op\n"
            << "runtime:     ONNX Runtime " << info.onnxruntime_version << '\n';
  return 0;
}

}  // namespace

Action add_info_command(CLI::App& app) {
  auto args = std::make_shared<InfoArgs>();
  auto* cmd = app.add_subcommand("info", "Describe a model folder: inputs, outputs, pooling, providers");
  add_model_options(*cmd, args->model);
  cmd->add_flag("--json", args->json, "Print JSON");
  return [args] { return run_info(*args); };
}

}  // namespace sieve::cli
