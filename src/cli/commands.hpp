#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "sieve/embedder.hpp"
#include "sieve/version.hpp"

namespace sieve::cli {

// Each subcommand registers its options and returns the action to run.
using Action = std::function<int()>;

Action add_embed_command(CLI::App& app);
Action add_tokenize_command(CLI::App& app);
Action add_info_command(CLI::App& app);
Action add_rerank_command(CLI::App& app);
Action add_classify_command(CLI::App& app);
Action add_similarity_command(CLI::App& app);
Action add_serve_command(CLI::App& app);
Action add_pull_command(CLI::App& app);
Action add_bundle_command(CLI::App& app);
Action add_index_command(CLI::App& app);
Action add_search_command(CLI::App& app);
Action add_mcp_command(CLI::App& app);
Action add_completion_command(CLI::App& app);

// The bash completion script for every subcommand and option of `app`.
std::string bash_completion(const CLI::App& app);
// "Examples:" at the end of a command's --help; each is a shell line that the
// tests run.
void add_examples(CLI::App& command, std::initializer_list<std::string> examples);
// What is wrong with a command line the parser refused with `parser_message`: an unknown command or option
// (with the closest known one: "did you mean"), a missing command (with the list), else the parser's message
// with the --help that explains the command.
std::string diagnose_command_line(const CLI::App& app, int argc, const char* const* argv,
                                  const std::string& parser_message);
// Checks of numeric options whose refusals say what is expected ("--batch-size 0: expected a number above 0").
const CLI::Validator& positive_number();
const CLI::Validator& non_negative_number();
// What `sieve --version` prints: Sieve's version, ONNX Runtime's and its providers.
std::string version_text();
// The plugin providers (plugin_providers()) as lines: each with its library, then its devices indented; and
// as JSON for --json listings.
std::vector<std::string> plugin_lines(const std::vector<PluginProviderInfo>& plugins);
nlohmann::json plugins_json(const std::vector<PluginProviderInfo>& plugins);
// OpenVINO's own runtime in one line ("OpenVINO runtime 2026.4.1: LIBRARY, devices CPU"), or why it is unavailable.
std::string openvino_runtime_line(const OpenVinoRuntime& runtime);

// Options shared by commands that load a model.
struct ModelOptions {
  std::string model;
  int threads = 0;
  std::vector<std::string> providers;
  bool strict_providers = false;
  std::string optimization = "all";
  bool no_spinning = false;
};
void add_model_options(CLI::App& command, ModelOptions& options);
// The same without --model: threads, providers, optimization.
void add_runtime_options(CLI::App& command, ModelOptions& options);
// --index/-i/--store: an index folder or a PostgreSQL store.
CLI::Option* add_index_location(CLI::App& command, std::string& location, const std::string& folder_help);
RuntimeOptions to_runtime_options(const ModelOptions& options);
// The texts given as arguments, each taken as typed: "[MASK]" stays one text
// with its brackets (CLI11 would read it as a list).
CLI::Option* add_texts_option(CLI::App& command, std::vector<std::string>& texts, const std::string& help);

}  // namespace sieve::cli
