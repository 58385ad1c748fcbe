#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/http_server.hpp"
#include "sieve/batch_scheduler.hpp"
#include "sieve/registry.hpp"

namespace sieve::server {

struct ServerOptions {
  std::filesystem::path models_root;
  std::vector<std::string> models;  // empty: every model under the root
  RegistryOptions registry;
  SchedulerOptions scheduling;
  // Search indexes served by name (POST /v1/search, GET /v1/indexes); each
  // index's embedding model is a served model when one has its folder, else
  // loaded with registry.embedder's runtime options.
  std::vector<std::pair<std::string, std::filesystem::path>> indexes;
  // Files and folders each index is kept in step with, as (index name,
  // path): sieve serve --watch (see SearchIndex::watch).
  std::vector<std::pair<std::string, std::filesystem::path>> watches;

  std::string host = "127.0.0.1";  // loopback unless told otherwise
  int port = 8080;                 // 0: any free port (logged)
  // Connections, request sizes and deadlines (docs/http-api.md, "Limits and hardening").
  HttpLimits http;

  std::size_t max_inputs = 2048;  // per request; 413 beyond
  // Bytes one answer may hold (tokens of /tokenize, token vectors of
  // /embed_all, ...): a request that would make a larger one gets 413.
  std::size_t max_response_bytes = 64u << 20;
  // Cut inputs longer than the model's maximum when a request does not say
  // (Text Embeddings Inference's --auto-truncate); otherwise they get 422.
  bool auto_truncate = false;
  std::chrono::milliseconds request_timeout{30'000};

  // API keys: the variable holds comma-separated keys; the file one per line.
  std::string api_keys_variable = "SIEVE_API_KEYS";
  std::optional<std::filesystem::path> api_key_file;
  std::vector<std::string> cors_origins;  // empty: no CORS headers ("*": any origin)

  // On SIGINT/SIGTERM: /ready answers 503 for `drain_grace` while requests
  // are still taken (so a load balancer can stop sending), then the server
  // stops accepting and waits up to `drain_timeout` for in-flight requests.
  std::chrono::milliseconds drain_grace{0};
  std::chrono::milliseconds drain_timeout{30'000};
};

// Serves the models over HTTP until SIGINT or SIGTERM; returns the exit
// status: 0 after a clean drain, 1 when in-flight requests outlived the
// drain timeout. Throws when a model cannot be loaded or the address bound.
int serve(const ServerOptions& options);

}  // namespace sieve::server
