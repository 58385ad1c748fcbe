#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/http_error.hpp"
#include "server/http_message.hpp"
#include "server/http_server.hpp"

namespace sieve::server {

struct ServerState;

// A route's own work: reads the request, returns the JSON answer (status
// 200) or throws HttpError / sieve::Error.
using JsonHandler = std::function<nlohmann::json(const Request&)>;
// The same for a handler that writes the response itself (status 200 unless it sets another).
using RawHandler = std::function<void(const Request&, Response&)>;

// The routes of the server and what every request goes through: a route
// found from the head, the API key checked before the body is read, errors
// rendered in the shape of the route's API, CORS, and the metrics.
class Router : public HttpApplication {
 public:
  explicit Router(ServerState& state) : state_(state) {}

  // Adds `method path`; in `path`, a segment written "{name}" matches any
  // one non-empty segment, which goes to Request::matches ([0] is the path).
  // The API key is checked unless `open`; the request is counted in the
  // metrics under `metrics_route`, or `path` when empty.
  void add(const char* method, const std::string& path, ApiStyle style, RawHandler handler, bool open,
           const std::string& metrics_route);

  // Every route added, as (method, path) with "{name}" segments as given.
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> routes() const;

  std::optional<Response> admit(const Request& head) override;
  Response handle(Request& request) override;
  Response refuse(int status, const std::string& message, const std::string& path) override;

 private:
  struct Route {
    std::string method;
    std::string path;
    std::vector<std::string> segments;  // of a path with "{name}" segments; empty for a literal path
    ApiStyle style;
    RawHandler handler;
    bool open;
    std::string metrics_route;
  };
  // The route of a request; `matches` gets a pattern's captures.
  const Route* find(const Request& request, std::vector<std::string>* matches) const;
  void finish(const Request& request, Response& response, const std::string& metrics_route, double seconds) const;

  ServerState& state_;
  std::vector<Route> routes_;
};

// Adds a JSON route (see Router::add).
void add_route(Router& http, ServerState& state, const char* method, const std::string& path, ApiStyle style,
               JsonHandler handler, bool open = false, const std::string& metrics_route = {});
void add_raw_route(Router& http, ServerState& state, const char* method, const std::string& path, ApiStyle style,
                   RawHandler handler, bool open = false, const std::string& metrics_route = {});

}  // namespace sieve::server
