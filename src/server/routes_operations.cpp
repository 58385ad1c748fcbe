// Probes and metrics: GET /health, /ready, /metrics.
#include "server/routes.hpp"

namespace sieve::server {

void add_operations_routes(Router& http, ServerState& state) {
  // Probes answer without an API key: orchestrators call them bare.
  add_route(
      http, state, "GET", "/health", ApiStyle::kPlain,
      [](const Request&) {
        return nlohmann::json{{"status", "ok"}};
      },
      true);
  add_raw_route(
      http, state, "GET", "/ready", ApiStyle::kPlain,
      [&state](const Request&, Response& res) {
        const bool ready = state.ready.load();
        res.status = ready ? 200 : 503;
        nlohmann::json models = nlohmann::json::array();
        for (const ServedModel& m : state.models.all()) models.push_back(m.name);
        res.set_content(dump({{"ready", ready}, {"status", ready ? "ready" : "draining"}, {"models", models}}),
                        "application/json");
      },
      true);
  add_raw_route(http, state, "GET", "/metrics", ApiStyle::kPlain, [&state](const Request&, Response& res) {
    for (const ServedModel& m : state.models.all()) {
      state.metrics.set_queue_depth(m.name, m.reranker ? m.reranker->queued() : m.embedding->queued());
    }
    res.status = 200;
    res.set_content(state.metrics.render(), "text/plain; version=0.0.4");
  });
}

}  // namespace sieve::server
