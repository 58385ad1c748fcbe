#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/commands.hpp"
#include "server/http_error.hpp"
#include "server/mcp.hpp"
#include "server/served_indexes.hpp"
#include "sieve/error.hpp"
#include "sieve/logging.hpp"
#include "sieve/reranker.hpp"
#include "sieve/version.hpp"

namespace sieve::cli {
namespace mcp_command {

struct McpArgs {
  ModelOptions model;
  std::vector<std::string> indexes;
  std::string rerank;
  std::size_t rerank_candidates = 50;
};

// One message a line on standard output, flushed at once; false when the
// client has closed its end.
bool send(const nlohmann::json& message) {
  const std::string line = server::dump(message) + "\n";
  return std::fwrite(line.data(), 1, line.size(), stdout) == line.size() && std::fflush(stdout) == 0;
}

int run(const McpArgs& args) {
  // A client that goes away closes the pipe: writing then fails instead of killing the process.
  std::signal(SIGPIPE, SIG_IGN);
  std::vector<std::pair<std::string, std::filesystem::path>> specs;
  for (const std::string& spec : args.indexes) specs.push_back(server::parse_index_spec(spec));
  EmbedderOptions embedder_options;
  embedder_options.runtime = to_runtime_options(args.model);
  const server::ServedIndexes indexes(specs, embedder_options);
  std::optional<Reranker> reranker;
  if (!args.rerank.empty()) {
    RerankerOptions reranker_options;
    reranker_options.runtime = embedder_options.runtime;
    reranker.emplace(Reranker::load(args.rerank, reranker_options));
  }
  server::McpOptions options;
  options.server_version = version();
  options.reranker = reranker ? &*reranker : nullptr;
  options.rerank_candidates = args.rerank_candidates;
  const server::McpServer mcp(indexes, options);
  for (const server::ServedIndex& served : indexes.all()) {
    const IndexStats stats = served.index->stats();
    log_info("index " + served.name + ": " + stats.folder.string() + ", " + std::to_string(stats.documents) +
             " documents, " + std::to_string(stats.chunks) + " chunks");
  }
  log_info("MCP server ready on standard input and output");
  server::McpSession session;
  for (std::string line; std::getline(std::cin, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    const auto reply = mcp.handle_text(line, session);
    if (reply && !send(*reply)) break;
  }
  return 0;
}

}  // namespace mcp_command

Action add_mcp_command(CLI::App& app) {
  auto args = std::make_shared<mcp_command::McpArgs>();
  auto* cmd = app.add_subcommand(
      "mcp", "Serve search indexes to AI agents over the Model Context Protocol (MCP) on standard input and output");
  cmd->footer(
      "Messages are JSON-RPC, one a line; logs go to standard error. Tools: search, get_document, list_indexes, "
      "index_stats; each document is the resource sieve://INDEX/documents/ID. sieve serve --index offers the same "
      "over HTTP at /mcp.");
  add_examples(
      *cmd, {"echo '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
             "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"shell\",\"version\":\"1\"}}}' | "
             "sieve mcp --index notes=notes.idx",
             "echo '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}' | sieve mcp --index notes=notes.idx --rerank "
             "models/ms-marco-MiniLM-L-6-v2"});
  cmd->add_option("--index", args->indexes, "A search index (sieve index add) as NAME=DIR (repeatable)")->required();
  cmd->add_option("--rerank", args->rerank,
                  "Cross-encoder model folder: lets a search ask to rerank its best candidates");
  cmd->add_option("--rerank-candidates", args->rerank_candidates, "Candidates the cross-encoder scores (default 50)")
      ->check(CLI::Range(1, 1000));
  add_runtime_options(*cmd, args->model);
  return [args] { return mcp_command::run(*args); };
}

}  // namespace sieve::cli
