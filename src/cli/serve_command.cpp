#include <algorithm>
#include <memory>

#include "cli/commands.hpp"
#include "server/served_indexes.hpp"
#include "server/server.hpp"
#include "server/watched_indexes.hpp"

namespace sieve::cli {

Action add_serve_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "serve", "Serve the models of a models root over HTTP (OpenAI, Text Embeddings Inference and Cohere APIs)");
  add_examples(
      *command,
      {"sieve serve --models models --port 8080",
       "sieve serve --models models --model all-MiniLM-L6-v2 --index notes=notes.idx --host 0.0.0.0 --port 8080",
       "sieve serve --models models --index notes=notes.idx --watch notes=notes/ --port 8080"});
  struct Args {
    ModelOptions model;
    server::ServerOptions server;
    std::string models_root;
    double max_wait_ms = 1;
    double request_timeout_s = 30;
    double drain_timeout_s = 30;
    double drain_grace_s = 0;
    double header_timeout_s = 10;
    double body_timeout_s = 30;
    double idle_timeout_s = 5;
    std::string api_key_file;
    std::vector<std::string> indexes;
    std::vector<std::string> watches;
  };
  auto args = std::make_shared<Args>();
  auto& s = args->server;
  command->add_option("--models", args->models_root, "Models root: each folder under it is a model, named by its path")
      ->required();
  command->add_option("--model", s.models, "Serve only this model (repeatable; default: every model under the root)");
  command->add_option(
      "--index", args->indexes,
      "Serve a search index (sieve index add) as NAME=DIR for POST /v1/search, the search page and MCP at "
      "/mcp (repeatable)");
  command->add_option("--watch", args->watches,
                      "Keep a served index in step with a file or folder (as sieve index watch) while serving: "
                      "NAME=PATH for the index NAME, or PATH when one index is served (repeatable)");
  command->add_option("--host", s.host, "Address to listen on (default 127.0.0.1: this machine only)");
  command->add_option("--port", s.port, "Port (0: any free port, logged)")->check(CLI::Range(0, 65535));
  add_runtime_options(*command, args->model);
  command
      ->add_option("--max-batch-tokens", s.scheduling.max_batch_tokens,
                   "Tokens per model run at most, padding included")
      ->check(positive_number());
  command->add_option("--max-batch-size", s.scheduling.max_batch_size, "Inputs per model run at most")
      ->check(positive_number());
  command->add_option("--max-wait-ms", args->max_wait_ms, "How long a queued input may wait for others to join its run")
      ->check(CLI::Range(0.0, 10000.0));
  command
      ->add_option("--max-padding", s.scheduling.max_padding,
                   "Padding a model run may add, as a fraction of its real tokens")
      ->check(CLI::Range(0.0, 100.0));
  command
      ->add_option("--max-queued", s.scheduling.max_queued,
                   "Inputs queued per model output at most (BGE-M3 has three outputs); beyond, requests get 429")
      ->check(positive_number());
  command->add_option("--workers", s.scheduling.workers, "Threads running model batches, per model output")
      ->check(CLI::Range(1, 64));
  command->add_option("--http-threads", s.http.handler_threads, "Requests handled at once (more wait their turn)")
      ->check(CLI::Range(1, 4096));
  command->add_option("--max-body-bytes", s.http.max_body_bytes, "Largest request body, however sent (413 beyond)")
      ->check(positive_number());
  command
      ->add_option("--max-header-bytes", s.http.max_header_bytes,
                   "Largest request line and header fields together (431 beyond)")
      ->check(CLI::Range(1024, 1 << 20));
  command
      ->add_option("--max-connections", s.http.max_connections,
                   "Connections open at once; beyond, the idle and slowest are closed first")
      ->check(CLI::Range(1, 1 << 20));
  command
      ->add_option("--max-connections-per-client", s.http.max_connections_per_client,
                   "Connections open at once from one address")
      ->check(CLI::Range(1, 1 << 20));
  command->add_option("--header-timeout", args->header_timeout_s, "Seconds a client gets to send a request's head")
      ->check(CLI::Range(0.01, 3600.0));
  command->add_option("--body-timeout", args->body_timeout_s, "Seconds a client gets to send a request's body")
      ->check(CLI::Range(0.01, 3600.0));
  command
      ->add_option("--idle-timeout", args->idle_timeout_s,
                   "Seconds a kept-alive connection may wait for its next request")
      ->check(CLI::Range(0.01, 3600.0));
  command
      ->add_option("--max-response-bytes", s.max_response_bytes,
                   "Largest answer a request may ask for, e.g. the tokens of /tokenize (413 beyond)")
      ->check(positive_number());
  command->add_option("--max-inputs", s.max_inputs, "Inputs per request at most (413 beyond)")
      ->check(positive_number());
  command->add_flag("--auto-truncate", s.auto_truncate,
                    "Cut inputs longer than the model's maximum unless a request says otherwise (default: 422)");
  command->add_option("--request-timeout", args->request_timeout_s, "Seconds a request may take (503 beyond)")
      ->check(CLI::Range(0.001, 86400.0));
  command->add_option("--api-key-file", args->api_key_file,
                      "File of API keys, one per line (also: the SIEVE_API_KEYS variable, comma-separated)");
  command->add_option("--cors-allow-origin", s.cors_origins,
                      "Origin allowed to call from a browser (repeatable; *: any)");
  command
      ->add_option("--drain-grace", args->drain_grace_s,
                   "Seconds /ready answers 503 after SIGTERM before the server stops accepting")
      ->check(CLI::Range(0.0, 3600.0));
  command->add_option("--drain-timeout", args->drain_timeout_s, "Seconds in-flight requests get to finish on SIGTERM")
      ->check(CLI::Range(0.0, 3600.0));
  return [args] {
    auto& o = args->server;
    o.models_root = args->models_root;
    o.registry.embedder.runtime = to_runtime_options(args->model);
    o.registry.reranker.runtime = o.registry.embedder.runtime;
    const auto ms = [](double seconds) { return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000)); };
    o.scheduling.max_wait = std::chrono::microseconds(static_cast<std::int64_t>(args->max_wait_ms * 1000));
    o.request_timeout = ms(args->request_timeout_s);
    o.drain_timeout = ms(args->drain_timeout_s);
    o.drain_grace = ms(args->drain_grace_s);
    o.http.header_timeout = ms(args->header_timeout_s);
    o.http.body_timeout = ms(args->body_timeout_s);
    o.http.idle_timeout = ms(args->idle_timeout_s);
    // A write gets as long as the request may take.
    o.http.write_timeout = std::max(o.request_timeout, std::chrono::milliseconds(1000));
    if (!args->api_key_file.empty()) o.api_key_file = args->api_key_file;
    o.indexes.clear();
    for (const std::string& spec : args->indexes) o.indexes.push_back(server::parse_index_spec(spec));
    std::vector<std::string> names;
    for (const auto& [name, folder] : o.indexes) names.push_back(name);
    o.watches.clear();
    for (const std::string& spec : args->watches) o.watches.push_back(server::parse_watch_spec(spec, names));
    return server::serve(o);
  };
}

}  // namespace sieve::cli
