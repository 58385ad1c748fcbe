#include "server/router.hpp"

#include <chrono>

#include "server/routes.hpp"
#include "sieve/logging.hpp"

namespace sieve::server {
namespace {

using Clock = std::chrono::steady_clock;

// Which API a path belongs to, for errors raised before any route runs
// (unknown path, a request the connection layer refuses).
ApiStyle style_of(const std::string& path) {
  if (path == "/v1/rerank") return ApiStyle::kCohere;
  if (path == "/mcp") return ApiStyle::kJsonRpc;
  if (path.rfind("/v1/", 0) == 0) return ApiStyle::kOpenAI;
  if (path.rfind("/api/", 0) == 0) return ApiStyle::kOllama;
  if (path == "/embed" || path == "/embed_sparse" || path == "/embed_all" || path == "/rerank" || path == "/predict" ||
      path == "/tokenize" || path == "/decode" || path == "/info") {
    return ApiStyle::kTei;
  }
  return ApiStyle::kPlain;
}

Response error_response(ApiStyle style, const HttpError& error) {
  Response res;
  res.status = error.status();
  res.set_content(dump(error_body(style, error)), "application/json");
  return res;
}

// "/a/b/c" as {"a", "b", "c"} (an empty segment stays: "/a//b" is {"a", "", "b"}).
std::vector<std::string> segments_of(const std::string& path) {
  std::vector<std::string> out;
  std::size_t start = path.empty() || path.front() != '/' ? 0 : 1;
  for (;;) {
    const std::size_t slash = path.find('/', start);
    out.push_back(path.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
    if (slash == std::string::npos) return out;
    start = slash + 1;
  }
}

void allow_origin(const ServerOptions& options, const Request& req, Response& res) {
  if (options.cors_origins.empty()) return;
  const std::string origin = req.header("Origin");
  for (const std::string& allowed : options.cors_origins) {
    if (allowed == "*" || allowed == origin) {
      res.set_header("Access-Control-Allow-Origin", allowed == "*" ? "*" : origin);
      if (allowed != "*") res.set_header("Vary", "Origin");
      return;
    }
  }
}

}  // namespace

std::vector<std::pair<std::string, std::string>> Router::routes() const {
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(routes_.size());
  for (const Route& r : routes_) out.emplace_back(r.method, r.path);
  return out;
}

void Router::add(const char* method, const std::string& path, ApiStyle style, RawHandler handler, bool open,
                 const std::string& metrics_route) {
  Route route{method, path, {}, style, std::move(handler), open, metrics_route.empty() ? path : metrics_route};
  if (path.find('{') != std::string::npos) route.segments = segments_of(path);
  routes_.push_back(std::move(route));
}

const Router::Route* Router::find(const Request& request, std::vector<std::string>* matches) const {
  // HEAD is answered as GET without the body.
  const std::string& method = request.method == "HEAD" ? std::string("GET") : request.method;
  for (const Route& route : routes_) {
    if (route.method != method) continue;
    if (route.segments.empty()) {
      if (route.path == request.path) return &route;
      continue;
    }
    // Segments are split before they are decoded, so that "%2F" in one (a document id that is a path)
    // stays in it.
    std::vector<std::string> segments = segments_of(request.raw_path.empty() ? request.path : request.raw_path);
    if (segments.size() != route.segments.size()) continue;
    if (!request.raw_path.empty()) {
      bool decoded = true;
      for (std::string& segment : segments) {
        auto plain = percent_decode(segment, false);
        if (!plain) decoded = false;
        segment = plain.value_or(std::string());
      }
      if (!decoded) continue;
    }
    std::vector<std::string> found{request.path};
    bool match = true;
    for (std::size_t i = 0; i < segments.size() && match; ++i) {
      if (route.segments[i].front() == '{') {
        match = !segments[i].empty();
        found.push_back(segments[i]);
      } else {
        match = route.segments[i] == segments[i];
      }
    }
    if (!match) continue;
    if (matches != nullptr) *matches = std::move(found);
    return &route;
  }
  return nullptr;
}

void Router::finish(const Request& request, Response& response, const std::string& metrics_route,
                    double seconds) const {
  allow_origin(state_.options, request, response);
  state_.metrics.count_request(metrics_route, response.status, seconds);
}

std::optional<Response> Router::admit(const Request& head) {
  if (head.method == "OPTIONS" && !state_.options.cors_origins.empty()) {
    Response res;
    res.status = 204;
    allow_origin(state_.options, head, res);
    res.set_header("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
    res.set_header("Access-Control-Allow-Headers",
                   "Authorization, Content-Type, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID");
    res.set_header("Access-Control-Max-Age", "600");
    return res;
  }
  const Route* route = find(head, nullptr);
  if (route == nullptr) {
    Response res = error_response(style_of(head.path), HttpError(404, "no route " + head.method + " " + head.path));
    finish(head, res, "(none)", 0);
    return res;
  }
  // The key is checked from the head: a client without one never gets
  // its body read.
  if (!route->open && state_.keys.enabled() && !state_.keys.accepts(head.header("Authorization"))) {
    Response res = error_response(
        route->style,
        HttpError(401, "a valid API key is required: send it as \"Authorization: Bearer KEY\"", {}, "invalid_api_key"));
    res.set_header("WWW-Authenticate", "Bearer");
    finish(head, res, route->metrics_route, 0);
    return res;
  }
  return std::nullopt;
}

Response Router::handle(Request& request) {
  const auto start = Clock::now();
  const Route* route = find(request, &request.matches);
  Response res;
  if (route == nullptr) {  // admitted, so never; answered all the same
    res = error_response(style_of(request.path), HttpError(404, "no route " + request.method + " " + request.path));
    finish(request, res, "(none)", 0);
    return res;
  }
  try {
    res.status = 200;
    route->handler(request, res);
  } catch (const HttpError& e) {
    res = error_response(route->style, e);
  } catch (const Error& e) {
    res = error_response(route->style, to_http_error(e, {}));
  } catch (const std::bad_alloc&) {
    res = error_response(route->style, HttpError(503, "out of memory for this request"));
  } catch (const std::exception& e) {
    log_error("unexpected error on " + route->metrics_route + ": " + e.what());
    res = error_response(route->style, HttpError(500, std::string("internal error: ") + e.what()));
  }
  finish(request, res, route->metrics_route, std::chrono::duration<double>(Clock::now() - start).count());
  return res;
}

Response Router::refuse(int status, const std::string& message, const std::string& path) {
  Response res = error_response(style_of(path), HttpError(status, message));
  state_.metrics.count_request("(none)", status, 0);
  return res;
}

void add_raw_route(Router& http, ServerState& /*state*/, const char* method, const std::string& path, ApiStyle style,
                   RawHandler handler, bool open, const std::string& metrics_route) {
  http.add(method, path, style, std::move(handler), open, metrics_route);
}

void add_route(Router& http, ServerState& state, const char* method, const std::string& path, ApiStyle style,
               JsonHandler handler, bool open, const std::string& metrics_route) {
  add_raw_route(
      http, state, method, path, style,
      [handler = std::move(handler)](const Request& req, Response& res) {
        res.status = 200;
        res.set_content(dump(handler(req)), "application/json");
      },
      open, metrics_route);
}

}  // namespace sieve::server
