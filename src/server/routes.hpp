#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "server/auth.hpp"
#include "server/client_connection.hpp"
#include "server/http_error.hpp"
#include "server/metrics.hpp"
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
  std::chrono::system_clock::time_point started = std::chrono::system_clock::now();

  [[nodiscard]] std::chrono::steady_clock::time_point deadline() const {
    return std::chrono::steady_clock::now() + options.request_timeout;
  }
  // Whether the request's client has gone away, for the services to drop its work.
  [[nodiscard]] static std::function<bool()> client_gone(const httplib::Request& req) {
    return [connection = std::make_shared<ClientConnection>(req)] { return connection->gone(); };
  }
};

// A route's own work: reads the request, returns the JSON answer (status
// 200) or throws HttpError / sieve::Error.
using JsonHandler = std::function<nlohmann::json(const httplib::Request&)>;

// Adds `handler` as `method path` (a regular expression for cpp-httplib):
// checks the API key (unless `open`), renders errors in `style`, and counts
// the request in the metrics under `metrics_route`, or `path` when empty.
void add_route(httplib::Server& http, ServerState& state, const char* method, const std::string& path, ApiStyle style,
               JsonHandler handler, bool open = false, const std::string& metrics_route = {});
// The same for a handler that writes the response itself (status 200 unless it sets another).
using RawHandler = std::function<void(const httplib::Request&, httplib::Response&)>;
void add_raw_route(httplib::Server& http, ServerState& state, const char* method, const std::string& path,
                   ApiStyle style, RawHandler handler, bool open = false, const std::string& metrics_route = {});

void add_openai_routes(httplib::Server& http, ServerState& state);
void add_tei_routes(httplib::Server& http, ServerState& state);
void add_cohere_routes(httplib::Server& http, ServerState& state);
// /health, /ready, /metrics.
void add_operations_routes(httplib::Server& http, ServerState& state);
// POST /v1/search, GET /v1/indexes, GET /v1/indexes/{name}.
void add_search_routes(httplib::Server& http, ServerState& state, const ServedIndexes& indexes);
// GET /ui (the search page) and its script and style.
void add_ui_routes(httplib::Server& http, ServerState& state);

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
