#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <optional>

#include "cli/commands.hpp"
#include "sieve/error.hpp"
#include "sieve/registry.hpp"
#include "sieve/reranker.hpp"
#include "sieve/text.hpp"

namespace sieve::cli {
namespace {

struct InfoArgs {
  ModelOptions model;
  std::string models_root;
  bool no_load = false;
  bool json = false;
};

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
  return out + "]";
}

// The registry under a models root: every model folder with its kind,
// dimension, maximum length and providers. Each model is loaded in turn
// (and dropped again) so that the providers are those its session really
// uses; --no-load reports the requested ones instead, reading only files.
int run_registry_info(const InfoArgs& args) {
  RegistryOptions options;
  options.embedder.runtime = to_runtime_options(args.model);
  options.reranker.runtime = options.embedder.runtime;
  ModelRegistry registry(args.models_root, options);
  std::vector<RegistryEntry> entries = registry.list();
  if (!args.no_load) {
    for (auto& entry : entries) {
      if (!entry.error.empty()) continue;
      try {
        registry.load(entry.name);
        entry = registry.describe(entry.name);
        registry.unload(entry.name);
      } catch (const Error& e) {
        entry.error = e.what();
      }
    }
  }
  if (args.json) {
    nlohmann::json doc;
    doc["root"] = registry.root().string();
    doc["models"] = nlohmann::json::array();
    for (const auto& e : entries) {
      nlohmann::json m = {{"name", e.name}};
      if (!e.error.empty()) {
        m["error"] = e.error;
      } else {
        m["kind"] = to_string(e.kind);
        m["type"] = to_string(e.type);
        m["dimension"] = e.dimension;
        m["max_length"] = e.max_length;
        m["providers"] = e.providers;
        m["providers_in_use"] = !args.no_load;
        m["estimated_bytes"] = e.estimated_bytes;
      }
      doc["models"].push_back(std::move(m));
    }
    std::cout << doc.dump(2) << '\n';
    return 0;
  }
  std::size_t width = 4;
  for (const auto& e : entries) width = std::max(width, escape_control(e.name).size());
  const auto pad = [](std::string text, std::size_t n) {
    if (text.size() < n) text.append(n - text.size(), ' ');
    return text;
  };
  std::cout << "models root: " << registry.root().string() << " (" << entries.size() << " models)\n";
  if (entries.empty()) return 0;
  std::cout << pad("name", width) << "  " << pad("kind", 16) << "  " << pad("dimension", 9) << "  "
            << pad("max length", 10) << "  " << (args.no_load ? "providers (requested)" : "providers") << '\n';
  for (const auto& e : entries) {
    std::cout << pad(escape_control(e.name), width) << "  ";
    if (!e.error.empty()) {
      std::cout << "error: " << escape_control(e.error) << '\n';
      continue;
    }
    std::cout << pad(to_string(e.kind), 16) << "  " << pad(std::to_string(e.dimension), 9) << "  "
              << pad(std::to_string(e.max_length), 10) << "  " << join(e.providers, ",") << '\n';
  }
  return 0;
}

int run_info(const InfoArgs& args) {
  if (!args.models_root.empty()) return run_registry_info(args);
  if (args.model.model.empty()) throw Error(ErrorCode::kInvalidArgument, "info needs --model DIR or --models ROOT");
  const ModelKind kind = detect_model_kind(args.model.model);
  const bool reranker = loads_as_reranker(kind);
  std::optional<Embedder> embedder;
  std::optional<Reranker> cross_encoder;
  if (reranker) {
    RerankerOptions options;
    options.runtime = to_runtime_options(args.model);
    cross_encoder.emplace(Reranker::load(args.model.model, options));
  } else {
    EmbedderOptions options;
    options.runtime = to_runtime_options(args.model);
    embedder.emplace(Embedder::load(args.model.model, options));
  }
  const ModelInfo& info = reranker ? cross_encoder->info() : embedder->info();
  const std::size_t vocab_size =
      reranker ? cross_encoder->tokenizer().vocab_size() : embedder->tokenizer().vocab_size();
  if (args.json) {
    nlohmann::json doc;
    doc["folder"] = info.folder.string();
    doc["onnx_file"] = info.onnx_file.string();
    for (const auto& t : info.inputs) doc["inputs"].push_back({{"name", t.name}, {"type", t.type}, {"shape", t.shape}});
    for (const auto& t : info.outputs)
      doc["outputs"].push_back({{"name", t.name}, {"type", t.type}, {"shape", t.shape}});
    // "embedding" for every dense kind, as before pooled graphs were told apart.
    doc["kind"] = to_string(kind == ModelKind::kPooledEmbedding ? ModelKind::kEmbedding : kind);
    doc["type"] = to_string(info.type);
    doc["output"] = info.output;
    if (reranker) {
      doc["labels"] = cross_encoder->num_labels();
      doc["label_names"] = cross_encoder->labels();
      doc["activation"] = to_string(cross_encoder->activation());
      doc["llm_reranker"] = cross_encoder->is_llm_reranker();
      if (!cross_encoder->is_llm_reranker()) {
        doc["classification_activation"] = to_string(cross_encoder->classification_activation());
      }
    } else {
      doc["pooling"] = pooling_name(info);
      doc["normalize"] = info.normalize;
      doc["modules"] = info.modules;
    }
    doc["max_length"] = info.max_length;
    // A pair scorer's "dimension" is its number of labels, as the model listing and the C ABI give it.
    doc["dimension"] = gives_vectors(info.type) ? info.dimension : info.pairs.labels;
    doc["providers"] = info.providers;
    doc["partition"] = nlohmann::json::array();
    for (const auto& p : info.partition) {
      auto entry = nlohmann::json{
          {"provider", p.provider}, {"nodes", p.nodes}, {"subgraphs", p.subgraphs}, {"operators", p.operators}};
      if (!p.engine.empty()) entry["engine"] = p.engine;
      doc["partition"].push_back(std::move(entry));
    }
    doc["plugins"] = plugins_json(plugin_providers());
    const OpenVinoRuntime openvino = openvino_runtime();
    doc["openvino_runtime"] = {
        {"library", openvino.library}, {"version", openvino.version}, {"devices", openvino.devices}};
    if (!openvino.error.empty()) doc["openvino_runtime"]["error"] = openvino.error;
    doc["intra_op_threads"] = info.intra_op_threads;
    doc["onnxruntime_version"] = info.onnxruntime_version;
    doc["fused_operators"] = nlohmann::json::object();
    for (const auto& [op, n] : info.fused_operators) doc["fused_operators"][op] = n;
    if (!info.fusion_note.empty()) doc["unfused"] = info.fusion_note;
    if (!info.recorded_accuracy.empty()) {
      doc["recorded_accuracy"] = info.recorded_accuracy;
      doc["accuracy_below_threshold"] = info.accuracy_below_threshold;
    }
    doc["vocab_size"] = vocab_size;
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
  std::cout << "type:        " << to_string(info.type) << '\n';
  if (reranker && cross_encoder->is_llm_reranker()) {
    std::cout << "kind:        reranker (causal LM: P(yes) against no after its prompt, llm_reranker.json)\n"
              << "activation:  " << to_string(cross_encoder->activation()) << " of the yes-no log-odds\n";
  } else if (reranker) {
    const std::string names = join(cross_encoder->labels(), ", ");
    std::cout << "kind:        reranker (cross-encoder) and classifier (sieve classify)\n"
              << "labels:      " << cross_encoder->num_labels() << " (" << names << ")\n"
              << "activation:  " << to_string(cross_encoder->activation()) << " (rerank), "
              << to_string(cross_encoder->classification_activation()) << " (classify)\n";
  } else {
    for (std::size_t i = 0; i < info.modules.size(); ++i) {
      std::cout << (i == 0 ? "modules:     " : "             ") << i << ". " << info.modules[i] << '\n';
    }
    if (info.output_kind == OutputKind::kSparse) {
      std::cout << "kind:        sparse embedding (SPLADE: a weight per vocabulary token; sieve embed --sparse)\n";
    }
    std::cout << "pooling:     " << (info.pooled_by_model ? std::string("done by the model") : pooling_name(info))
              << '\n'
              << "normalize:   " << (info.normalize ? "yes (L2)" : "no") << '\n'
              << "dimension:   " << info.dimension << '\n';
  }
  const std::string fused =
      join(info.fused_operators, ", ", [](const auto& op) { return op.first + " " + std::to_string(op.second); });
  std::cout << "graph:       " << (fused.empty() ? std::string("no fused operators") : "fused " + fused) << '\n';
  if (!info.fusion_note.empty()) std::cout << "             not fused: " << info.fusion_note << '\n';
  if (!info.recorded_accuracy.empty()) std::cout << "accuracy:    " << info.recorded_accuracy << '\n';
  std::cout << "max length:  " << info.max_length << " tokens\n"
            << "vocabulary:  " << vocab_size << " tokens\n"
            << "providers:   ";
  std::cout << join(info.providers, ", ") << '\n';
  for (std::size_t i = 0; i < info.partition.size(); ++i) {
    std::cout << (i == 0 ? "placement:   " : "             ") << describe_nodes(info.partition[i]) << '\n';
  }
  const auto plugins = plugin_lines(plugin_providers());
  for (std::size_t i = 0; i < plugins.size(); ++i) {
    std::cout << (i == 0 ? "plugins:     " : "             ") << plugins[i] << '\n';
  }
  std::cout << "             " << openvino_runtime_line(openvino_runtime()) << '\n';
  std::cout << "threads:     " << info.intra_op_threads << " intra-op\n"
            << "runtime:     ONNX Runtime " << info.onnxruntime_version << '\n';
  return 0;
}

}  // namespace

Action add_info_command(CLI::App& app) {
  auto args = std::make_shared<InfoArgs>();
  auto* cmd = app.add_subcommand("info",
                                 "Describe a model folder (inputs, outputs, pooling, providers), or with --models "
                                 "every model under a models root");
  add_examples(*cmd, {"sieve info --model models/all-MiniLM-L6-v2", "sieve info --models models --no-load --json"});
  add_model_options(*cmd, args->model);
  // --model is required by the shared options; here --models may replace it.
  auto* model = cmd->get_option("--model");
  model->required(false);
  cmd->add_option("--models", args->models_root,
                  "Models root: list the model folders under it (kind, dimension, max length, providers)")
      ->excludes(model);
  cmd->add_flag("--no-load", args->no_load,
                "With --models: read the folders only, reporting the requested providers instead of loading "
                "each model");
  cmd->add_flag("--json", args->json, "Print JSON");
  return [args] { return run_info(*args); };
}

}  // namespace sieve::cli
