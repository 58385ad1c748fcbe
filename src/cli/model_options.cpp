#include "cli/commands.hpp"
#include "sieve/error.hpp"

namespace sieve::cli {

void add_model_options(CLI::App& command, ModelOptions& options) {
  command.add_option("--model,-m", options.model, "Model folder (model.onnx, tokenizer.json, ...)")->required();
  add_runtime_options(command, options);
}

void add_runtime_options(CLI::App& command, ModelOptions& options) {
  command.add_option("--threads", options.threads, "Intra-op threads (default: physical cores)")
      ->check(non_negative_number());
  command
      .add_option("--provider", options.providers,
                  "Execution provider to try, in order: cpu, cuda, tensorrt, openvino, dnnl, coreml, directml; "
                  "options as cuda:device_id=0")
      ->allow_extra_args(false);
  command.add_flag("--strict-providers", options.strict_providers, "Fail when a requested provider is unavailable");
  command.add_option("--optimization", options.optimization, "Graph optimization: disabled, basic, extended, all")
      ->check(CLI::IsMember({"disabled", "basic", "extended", "all"}));
  command.add_flag("--no-spinning", options.no_spinning,
                   "Intra-op threads sleep instead of spinning while they wait: slightly slower alone, much faster "
                   "when other work shares the cores");
}

CLI::Option* add_index_location(CLI::App& command, std::string& location, const std::string& folder_help) {
  return command
      .add_option("--index,-i,--store", location,
                  folder_help +
                      ", or a PostgreSQL store with pgvector: postgresql://[user@]host[:port]/database[?index=NAME] "
                      "(the password from PGPASSWORD or ~/.pgpass), or env:VAR or file:PATH holding such a URI")
      ->required();
}

RuntimeOptions to_runtime_options(const ModelOptions& options) {
  check_thread_count(options.threads, "--threads");
  RuntimeOptions runtime;
  runtime.intra_op_threads = options.threads;
  runtime.strict_providers = options.strict_providers;
  runtime.spinning = !options.no_spinning;
  for (const auto& p : options.providers) runtime.providers.push_back(parse_provider_spec(p));
  if (options.optimization == "disabled") runtime.graph_optimization = GraphOptimization::kDisabled;
  if (options.optimization == "basic") runtime.graph_optimization = GraphOptimization::kBasic;
  if (options.optimization == "extended") runtime.graph_optimization = GraphOptimization::kExtended;
  return runtime;
}

CLI::Option* add_texts_option(CLI::App& command, std::vector<std::string>& texts, const std::string& help) {
  // Without extra args CLI11 takes each argument as it is, and a positional
  // takes arguments while fewer than its minimum: hence the large minimum.
  constexpr int kMaxTexts = CLI::detail::expected_max_vector_size;
  return command.add_option("texts", texts, help)
      ->allow_extra_args(false)
      ->expected(kMaxTexts, kMaxTexts)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

}  // namespace sieve::cli
