#include "server/server.hpp"

#include <malloc.h>
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include "server/mcp.hpp"
#include "server/routes.hpp"
#include "server/watched_indexes.hpp"
#include "sieve/logging.hpp"
#include "sieve/text.hpp"
#include "sieve/version.hpp"

namespace sieve::server {
namespace {

std::string listening_text(const ServerOptions& options, int port) {
  const bool v6 = options.host.find(':') != std::string::npos;
  return std::string("http://") + (v6 ? "[" : "") + options.host + (v6 ? "]" : "") + ":" + std::to_string(port);
}

// glibc's allocator, tuned for a long-running server: with its defaults a
// burst of large requests (tens of megabytes each, handled on different
// threads) left each of up to 16 arenas holding its high-water mark, and
// freeing a large block raised the thresholds below which memory is kept.
// Fixed thresholds and a few arenas return memory after a burst (measured
// in bench/RESULTS.md, "Hostile clients").
void tune_allocator() {
  mallopt(M_ARENA_MAX, 4);
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  mallopt(M_TRIM_THRESHOLD, 4 << 20);
}

}  // namespace

int serve(const ServerOptions& options) {
  tune_allocator();
  // Signals go to one thread that waits for them; every thread made from
  // here on inherits the blocked mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  // The port first: one in use is an error before any model loads, and clients that connect while they load
  // wait in the backlog.
  BoundSocket socket = BoundSocket::bind(options.host, options.port);
  ModelRegistry registry(options.models_root, options.registry);
  Metrics metrics;
  ServedModels models(registry, options.models, options.scheduling, metrics);
  ServerState state{options, models, metrics, ApiKeys::load(options.api_keys_variable.c_str(), options.api_key_file)};
  // An index's own model loads as `sieve search` loads it: the folder's
  // settings, the server's runtime options.
  EmbedderOptions index_embedder;
  index_embedder.runtime = options.registry.embedder.runtime;
  const ServedIndexes indexes(options.indexes, models, index_embedder);
  for (const ServedModel& m : models.all()) {
    const ModelInfo& info = m.info();
    const std::string providers = join(info.providers, ",");
    log_info("model " + m.name + ": " + to_string(m.kind) + ", " +
             (gives_vectors(info.type) ? std::to_string(info.dimension) + " dimensions"
                                       : std::to_string(info.pairs.labels) + " label(s)") +
             ", max " + std::to_string(info.max_length) + " tokens, providers [" + providers + "], loaded in " +
             std::to_string(m.load_seconds) + " s");
  }
  for (const ServedIndex& served : indexes.all()) {
    const IndexStats stats = served.index->stats();
    // stats.folder: the folder, or the PostgreSQL store with its password hidden.
    log_info("index " + served.name + ": " + stats.folder.string() + ", " + std::to_string(stats.documents) +
             " documents, " + std::to_string(stats.chunks) + " chunks, model " + served.embedder_source);
  }

  Router router(state);
  add_openai_routes(router, state);
  add_tei_routes(router, state);
  add_cohere_routes(router, state);
  add_ollama_routes(router, state);
  add_operations_routes(router, state);
  add_search_routes(router, state, indexes);
  add_document_routes(router, state, indexes);
  if (!indexes.all().empty()) add_ui_routes(router, state);
  // MCP over the indexes; a search's `rerank` uses the first served reranker.
  McpOptions mcp_options;
  mcp_options.server_version = version();
  for (const ServedModel& m : models.all()) {
    if (m.is_reranker()) {
      mcp_options.reranker = &m.reranker->reranker();
      break;
    }
  }
  const McpServer mcp(indexes, mcp_options);
  if (!indexes.all().empty()) add_mcp_routes(router, state, mcp);
  add_api_docs_routes(router, state);
  check_routes_documented(router);

  HttpServer http(options.http, router);
  state.http = &http;
  const int port = http.listen(std::move(socket));
  if (options.host != "127.0.0.1" && options.host != "::1" && options.host != "localhost") {
    log_warn("listening on " + options.host + ", not only on loopback" +
             (state.keys.enabled() ? "" : ", and without API keys"));
  }
  log_info(std::string("API keys ") + (state.keys.enabled() ? "required" : "not required") + "; CORS " +
           (options.cors_origins.empty() ? "off" : "on"));
  // Changes are followed once the server answers: the first rescan may take a while.
  IndexWatchers watchers(indexes, options.watches);
  http.start();
  state.ready = true;
  log_info("listening on " + listening_text(options, port));
  if (!indexes.all().empty()) {
    log_info("search page: " + listening_text(options, port) + "/ui; MCP: " + listening_text(options, port) + "/mcp");
  }

  // Wait for SIGINT or SIGTERM; then drain.
  int received = 0;
  sigwait(&signals, &received);
  state.ready = false;
  log_info(std::string("received ") + (received == SIGINT ? "SIGINT" : "SIGTERM") + ", draining");
  if (options.drain_grace.count() > 0) std::this_thread::sleep_for(options.drain_grace);
  // Connections that never sent a complete request are closed at once; the
  // requests already read are answered, then the server exits.
  if (!http.drain(options.drain_timeout)) {
    log_error("in-flight requests outlived the drain timeout of " + std::to_string(options.drain_timeout.count()) +
              " ms; exiting anyway");
    std::fflush(nullptr);
    std::quick_exit(1);
  }
  watchers.stop();
  models.stop();
  log_info("drained; exiting");
  return 0;
}

}  // namespace sieve::server
