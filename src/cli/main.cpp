#include <iostream>

#include "cli/commands.hpp"
#include "sieve/error.hpp"
#include "sieve/logging.hpp"
#include "sieve/text.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Sieve: local text embeddings on ONNX Runtime"};
  app.require_subcommand(1);
  sieve::cli::add_examples(app, {"sieve embed --model models/all-MiniLM-L6-v2 \"A cat sits on the mat.\"",
                                 "sieve serve --models models --port 8080", "sieve embed --help"});
  app.set_version_flag("--version", sieve::cli::version_text, "Print Sieve's and ONNX Runtime's versions and exit");
  std::string log_level = "info";
  app.add_option("--log-level", log_level, "Logging: trace, debug, info, warn, error, off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  const std::vector<std::pair<std::string, sieve::cli::Action>> commands = {
      {"embed", sieve::cli::add_embed_command(app)},
      {"tokenize", sieve::cli::add_tokenize_command(app)},
      {"info", sieve::cli::add_info_command(app)},
      {"rerank", sieve::cli::add_rerank_command(app)},
      {"classify", sieve::cli::add_classify_command(app)},
      {"similarity", sieve::cli::add_similarity_command(app)},
      {"serve", sieve::cli::add_serve_command(app)},
      {"pull", sieve::cli::add_pull_command(app)},
      {"bundle", sieve::cli::add_bundle_command(app)},
      {"index", sieve::cli::add_index_command(app)},
      {"search", sieve::cli::add_search_command(app)},
      {"mcp", sieve::cli::add_mcp_command(app)},
      {"completion", sieve::cli::add_completion_command(app)},
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const bool asked = dynamic_cast<const CLI::CallForHelp*>(&e) != nullptr ||
                       dynamic_cast<const CLI::CallForAllHelp*>(&e) != nullptr ||
                       dynamic_cast<const CLI::CallForVersion*>(&e) != nullptr;
    if (asked) return app.exit(e);
    std::cerr << "sieve: error: " << sieve::cli::diagnose_command_line(app, argc, argv, e.what()) << '\n';
    return e.get_exit_code();
  }
  try {
    sieve::set_log_level(log_level);
    for (const auto& [name, action] : commands) {
      if (app.got_subcommand(name)) return action();
    }
  } catch (const std::exception& e) {
    // Messages name files, models and what servers said: text from outside,
    // shown with its control characters escaped.
    std::cerr << "sieve: error: " << sieve::escape_control(e.what()) << '\n';
    return 1;
  }
  return 1;
}
