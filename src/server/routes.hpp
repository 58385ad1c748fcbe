#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "server/auth.hpp"
#include "server/http_error.hpp"
#include "server/metrics.hpp"
#include "server/router.hpp"
#include "server/served_indexes.hpp"
#include "server/served_models.hpp"
#include "server/server.hpp"

namespace sieve::server {

// What every route sees.
struct ServerState {
  const ServerOptions& options;
  ServedModels& models;
  Metrics& metrics;
  ApiKeys keys;
  std::atomic<bool> ready{false};
  const HttpServer* http = nullptr;  // its connection counters, for /metrics
  std::chrono::system_clock::time_point started = std::chrono::system_clock::now();

  [[nodiscard]] std::chrono::steady_clock::time_point deadline() const {
    return std::chrono::steady_clock::now() + options.request_timeout;
  }
  // Whether the request's client has gone away, for the services to drop its work.
  [[nodiscard]] static std::function<bool()> client_gone(const Request& req) {
    if (req.client_gone) return req.client_gone;
    return [] { return false; };
  }
};

void add_openai_routes(Router& http, ServerState& state);
void add_tei_routes(Router& http, ServerState& state);
void add_cohere_routes(Router& http, ServerState& state);
// Ollama's embedding API (/api/embed, /api/embeddings, /api/tags, /api/show, /api/ps, /api/version) and
// /api/rerank, Sieve's extension of it.
void add_ollama_routes(Router& http, ServerState& state);
// Cohere's rerank of `body` (query, documents, top_n, return_documents) with the reranker `model` (unset: the first
// served), also what Ollama's /api/rerank answers.
nlohmann::json rerank_documents(ServerState& state, const Request& req, const nlohmann::json& body,
                                const std::optional<std::string>& model);
// /health, /ready, /metrics.
void add_operations_routes(Router& http, ServerState& state);
// POST /v1/search, GET /v1/indexes, GET /v1/indexes/{name}.
void add_search_routes(Router& http, ServerState& state, const ServedIndexes& indexes);
// GET /v1/documents, /v1/documents/{id} and /v1/documents/{id}/original.
void add_document_routes(Router& http, ServerState& state, const ServedIndexes& indexes);
// POST, DELETE and GET /mcp: the Model Context Protocol over streamable HTTP.
class McpServer;
void add_mcp_routes(Router& http, ServerState& state, const McpServer& mcp);
// GET /ui (the search page) and its script and style.
void add_ui_routes(Router& http, ServerState& state);
// GET /openapi.json (every route, request, answer and error, as OpenAPI 3.1) and GET /docs, a page of it.
void add_api_docs_routes(Router& http, ServerState& state);
// Throws sieve::Error naming any route of `router` the OpenAPI document does not describe: checked when the
// server starts, so that the document cannot fall behind the routes.
void check_routes_documented(const Router& router);

// The pages' Content-Security-Policy: only their own files may load or run, and only the server may be called;
// with every text from outside rendered as text, a second wall against markup smuggled into an answer.
inline constexpr const char* kPagePolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// Tokenization time of one request, for the metrics.
class TokenizeTimer {
 public:
  explicit TokenizeTimer(Metrics& metrics) : metrics_(metrics), start_(std::chrono::steady_clock::now()) {}
  TokenizeTimer(const TokenizeTimer&) = delete;
  TokenizeTimer& operator=(const TokenizeTimer&) = delete;
  ~TokenizeTimer() {
    metrics_.observe_tokenize(std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
  }

 private:
  Metrics& metrics_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace sieve::server
