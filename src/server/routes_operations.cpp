// Probes and metrics: GET /health, /ready, /metrics.
#include "server/routes.hpp"

namespace sieve::server {
namespace {
namespace operations_routes {

// The connection layer's counters, in the Prometheus text format.
void append_connection_metrics(std::string& out, const HttpCounters& c) {
  const auto add = [&out](const char* name, const char* type, const char* help, std::uint64_t value) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n" + name + " " +
           std::to_string(value) + "\n";
  };
  add("sieve_http_connections", "gauge", "HTTP connections open now.", c.open);
  add("sieve_http_connections_accepted_total", "counter", "HTTP connections accepted.", c.accepted);
  add("sieve_http_connections_shed_total", "counter", "Idle or slow HTTP connections closed to make room for new ones.",
      c.shed);
  add("sieve_http_connections_refused_total", "counter",
      "HTTP connections refused at the connection caps with none to shed.", c.refused);
  add("sieve_http_connections_timed_out_total", "counter",
      "HTTP connections closed for a head, body or answer over its deadline.", c.timed_out);
}

}  // namespace operations_routes
}  // namespace

void add_operations_routes(Router& http, ServerState& state) {
  using namespace operations_routes;
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
      state.metrics.set_queue_depth(m.name, (m.reranker ? m.reranker->queued() : 0) +
                                                (m.embedding ? m.embedding->queued() : 0) +
                                                (m.late ? m.late->queued() : 0));
    }
    std::string text = state.metrics.render();
    if (state.http != nullptr) append_connection_metrics(text, state.http->counters());
    res.status = 200;
    res.set_content(std::move(text), "text/plain; version=0.0.4");
  });
}

}  // namespace sieve::server
