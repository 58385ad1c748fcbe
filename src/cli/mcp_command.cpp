#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <deque>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

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
  std::size_t rerank_candidates = kDefaultRerankCandidates;
};

// Writes the answers, one message a line, flushed at once; safe from many
// threads. Stops writing once the client has closed its end.
class Output {
 public:
  void send(const nlohmann::json& message) {
    const std::string line = server::dump(message) + "\n";
    const std::lock_guard lock(mutex_);
    if (!open_) return;
    open_ = std::fwrite(line.data(), 1, line.size(), stdout) == line.size() && std::fflush(stdout) == 0;
  }

 private:
  std::mutex mutex_;
  bool open_ = true;
};

// Threads answering the requests that search or read an index, so that a
// slow one (a reranked search) holds up neither the others nor ping.
// Destroying it answers what is queued, then joins the threads.
class Workers {
 public:
  explicit Workers(std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) threads_.emplace_back([this] { work(); });
  }
  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;
  ~Workers() {
    {
      const std::lock_guard lock(mutex_);
      closing_ = true;
    }
    ready_.notify_all();
    for (std::thread& thread : threads_) thread.join();
  }
  void post(std::function<void()> task) {
    {
      const std::lock_guard lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    ready_.notify_one();
  }

 private:
  void work() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return closing_ || !tasks_.empty(); });
        if (tasks_.empty()) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> tasks_;
  bool closing_ = false;
  std::vector<std::thread> threads_;
};

// Whether a message is a request that works on an index (answered on a worker).
bool index_work(const nlohmann::json& message) {
  if (!message.is_object() || !message.contains("id")) return false;
  const auto method = message.find("method");
  return method != message.end() &&
         (*method == "tools/call" || *method == "resources/read" || *method == "resources/list");
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
  Output output;
  {
    Workers workers(4);
    for (std::string line; std::getline(std::cin, line);) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.find_first_not_of(" \t") == std::string::npos) continue;
      auto message = nlohmann::json::parse(line, nullptr, false);
      if (message.is_discarded()) {  // answered with the parse error
        if (const auto reply = mcp.handle_text(line, session)) output.send(*reply);
        continue;
      }
      if (!session.protocol_version.empty() && index_work(message)) {
        // The session is only read by these requests: each worker gets its copy.
        workers.post([&mcp, &output, session, message = std::move(message)]() mutable {
          if (const auto reply = mcp.handle(message, session)) output.send(*reply);
        });
        continue;
      }
      if (const auto reply = mcp.handle(message, session)) output.send(*reply);
    }
  }  // the requests still queued are answered before the process ends
  return 0;
}

}  // namespace mcp_command

Action add_mcp_command(CLI::App& app) {
  auto args = std::make_shared<mcp_command::McpArgs>();
  auto* cmd = app.add_subcommand(
      "mcp", "Serve search indexes to AI agents over the Model Context Protocol (MCP) on standard input and output");
  add_examples(
      *cmd, {"echo '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
             "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"shell\",\"version\":\"1\"}}}' | "
             "sieve mcp --index notes=notes.idx",
             "echo '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}' | sieve mcp --index notes=notes.idx --rerank "
             "models/ms-marco-MiniLM-L-6-v2"});
  cmd->footer(
      "Messages are JSON-RPC, one a line; logs go to standard error. Tools: search, get_document, list_indexes, "
      "index_stats; each document is the resource sieve://INDEX/documents/ID. sieve serve --index offers the same "
      "over HTTP at /mcp.\n\n" +
      cmd->get_footer());
  cmd->add_option("--index", args->indexes, "A search index (sieve index add) as NAME=DIR (repeatable)")->required();
  cmd->add_option("--rerank", args->rerank,
                  "Cross-encoder model folder: lets a search ask to rerank its best candidates");
  cmd->add_option("--rerank-candidates", args->rerank_candidates,
                  "Candidates the cross-encoder scores (default " + std::to_string(kDefaultRerankCandidates) + ")")
      ->check(CLI::Range(1, 1000));
  add_runtime_options(*cmd, args->model);
  return [args] { return mcp_command::run(*args); };
}

}  // namespace sieve::cli
