#include "server/server.hpp"

#include <httplib.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>

#include <chrono>
#include <future>
#include <thread>

#include "server/routes.hpp"
#include "sieve/logging.hpp"
#include "sieve/text.hpp"

namespace sieve::server {
namespace {

using Clock = std::chrono::steady_clock;

// Which API a path belongs to, for errors raised before any route runs
// (unknown path, body too large).
ApiStyle style_of(const std::string& path) {
  if (path == "/v1/rerank") return ApiStyle::kCohere;
  if (path.rfind("/v1/", 0) == 0) return ApiStyle::kOpenAI;
  if (path == "/embed" || path == "/embed_sparse" || path == "/embed_all" || path == "/rerank" || path == "/predict" ||
      path == "/tokenize" || path == "/decode" || path == "/info") {
    return ApiStyle::kTei;
  }
  return ApiStyle::kPlain;
}

void write_error(httplib::Response& res, ApiStyle style, const HttpError& error) {
  res.status = error.status();
  if (error.status() == 429 || error.status() == 503) res.set_header("Retry-After", "1");
  res.set_content(dump(error_body(style, error)), "application/json");
}

void allow_origin(const ServerOptions& options, const httplib::Request& req, httplib::Response& res) {
  if (options.cors_origins.empty()) return;
  const std::string origin = req.get_header_value("Origin");
  for (const std::string& allowed : options.cors_origins) {
    if (allowed == "*" || allowed == origin) {
      res.set_header("Access-Control-Allow-Origin", allowed == "*" ? "*" : origin);
      if (allowed != "*") res.set_header("Vary", "Origin");
      return;
    }
  }
}

std::string listening_text(const ServerOptions& options, int port) {
  const bool v6 = options.host.find(':') != std::string::npos;
  return std::string("http://") + (v6 ? "[" : "") + options.host + (v6 ? "]" : "") + ":" + std::to_string(port);
}

}  // namespace

void add_raw_route(httplib::Server& http, ServerState& state, const char* method, const std::string& path,
                   ApiStyle style, RawHandler handler, bool open, const std::string& metrics_route) {
  auto wrapped = [&state, route = metrics_route.empty() ? path : metrics_route, style, handler = std::move(handler),
                  open](const httplib::Request& req, httplib::Response& res) {
    const auto start = Clock::now();
    try {
      if (!open && state.keys.enabled() && !state.keys.accepts(req.get_header_value("Authorization"))) {
        res.set_header("WWW-Authenticate", "Bearer");
        throw HttpError(401, "a valid API key is required: send it as \"Authorization: Bearer KEY\"", {},
                        "invalid_api_key");
      }
      res.status = 200;
      handler(req, res);
    } catch (const HttpError& e) {
      write_error(res, style, e);
    } catch (const Error& e) {
      write_error(res, style, to_http_error(e, {}));
    } catch (const std::bad_alloc&) {
      write_error(res, style, HttpError(503, "out of memory for this request"));
    } catch (const std::exception& e) {
      log_error("unexpected error on " + route + ": " + e.what());
      write_error(res, style, HttpError(500, std::string("internal error: ") + e.what()));
    }
    allow_origin(state.options, req, res);
    state.metrics.count_request(route, res.status, std::chrono::duration<double>(Clock::now() - start).count());
  };
  if (std::string_view(method) == "GET") {
    http.Get(path, wrapped);
  } else {
    http.Post(path, wrapped);
  }
}

void add_route(httplib::Server& http, ServerState& state, const char* method, const std::string& path, ApiStyle style,
               JsonHandler handler, bool open, const std::string& metrics_route) {
  add_raw_route(
      http, state, method, path, style,
      [handler = std::move(handler)](const httplib::Request& req, httplib::Response& res) {
        res.status = 200;
        res.set_content(dump(handler(req)), "application/json");
      },
      open, metrics_route);
}

int serve(const ServerOptions& options) {
  // Signals go to one thread that waits for them; every thread made from
  // here on inherits the blocked mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

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
    log_info("model " + m.name + ": " + to_string(m.kind) + ", " + std::to_string(info.dimension) +
             (m.kind == ModelKind::kReranker ? " label(s)" : " dimensions") + ", max " +
             std::to_string(info.max_length) + " tokens, providers [" + providers + "], loaded in " +
             std::to_string(m.load_seconds) + " s");
  }
  for (const ServedIndex& served : indexes.all()) {
    const IndexStats stats = served.index->stats();
    // stats.folder: the folder, or the PostgreSQL store with its password hidden.
    log_info("index " + served.name + ": " + stats.folder.string() + ", " + std::to_string(stats.documents) +
             " documents, " + std::to_string(stats.chunks) + " chunks, model " + served.embedder_source);
  }

  httplib::Server http;
  const std::size_t threads = std::max<std::size_t>(options.http_threads, 1);
  http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  // Responses go out in more than one write; with Nagle's algorithm the
  // client's delayed ACK would hold each small response back ~40 ms.
  http.set_tcp_nodelay(true);
  http.set_payload_max_length(options.max_body_bytes);
  http.set_keep_alive_max_count(100000);
  http.set_keep_alive_timeout(5);
  http.set_read_timeout(30);
  http.set_write_timeout(30);
  // Errors raised before a route runs (unknown path, body over the limit)
  // get a JSON body in the shape of the API the path belongs to.
  http.set_error_handler(
      httplib::Server::HandlerWithResponse([&state](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        const ApiStyle style = style_of(req.path);
        if (res.status == 413) {
          write_error(res, style,
                      HttpError(413, "the request body is larger than the " +
                                         std::to_string(state.options.max_body_bytes) + " bytes allowed"));
        } else if (res.status == 404) {
          write_error(res, style, HttpError(404, "no route " + req.method + " " + req.path));
        } else {
          write_error(res, style, HttpError(res.status, "HTTP status " + std::to_string(res.status)));
        }
        allow_origin(state.options, req, res);
        state.metrics.count_request("(none)", res.status, 0);
        return httplib::Server::HandlerResponse::Handled;
      }));
  if (!options.cors_origins.empty()) {
    http.Options(".*", [&state](const httplib::Request& req, httplib::Response& res) {
      allow_origin(state.options, req, res);
      res.set_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
      res.set_header("Access-Control-Allow-Headers", "Authorization, Content-Type");
      res.set_header("Access-Control-Max-Age", "600");
      res.status = 204;
    });
  }
  add_openai_routes(http, state);
  add_tei_routes(http, state);
  add_cohere_routes(http, state);
  add_operations_routes(http, state);
  add_search_routes(http, state, indexes);
  if (!indexes.all().empty()) add_ui_routes(http, state);

  // cpp-httplib listens with a backlog of 5: a burst of clients connecting
  // at once would overflow it and wait for SYN retries (a second or more).
  // Linux lets listen() be called again to raise it.
  int listen_socket = -1;
  http.set_socket_options([&listen_socket](socket_t sock) {
    httplib::default_socket_options(sock);
    listen_socket = sock;
  });
  int port = options.port;
  if (port == 0) {
    port = http.bind_to_any_port(options.host);
  } else if (!http.bind_to_port(options.host, port)) {
    port = -1;
  }
  if (port < 0) {
    throw Error(ErrorCode::kRuntime, "cannot listen on " + listening_text(options, options.port) +
                                         " (address in use, or not an address of this machine)");
  }
  if (listen_socket >= 0 && ::listen(listen_socket, SOMAXCONN) != 0) {
    log_warn("could not raise the listen backlog; bursts of new connections may wait");
  }
  if (options.host != "127.0.0.1" && options.host != "::1" && options.host != "localhost") {
    log_warn("listening on " + options.host + ", not only on loopback" +
             (state.keys.enabled() ? "" : ", and without API keys"));
  }
  log_info(std::string("API keys ") + (state.keys.enabled() ? "required" : "not required") + "; CORS " +
           (options.cors_origins.empty() ? "off" : "on"));
  auto listener = std::async(std::launch::async, [&http] { return http.listen_after_bind(); });
  while (!http.is_running() && listener.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready) {
  }
  state.ready = true;
  log_info("listening on " + listening_text(options, port));
  if (!indexes.all().empty()) log_info("search page: " + listening_text(options, port) + "/ui");

  // Wait for SIGINT or SIGTERM; then drain.
  int received = 0;
  sigwait(&signals, &received);
  state.ready = false;
  log_info(std::string("received ") + (received == SIGINT ? "SIGINT" : "SIGTERM") + ", draining");
  if (options.drain_grace.count() > 0) std::this_thread::sleep_for(options.drain_grace);
  // stop() closes the listening socket; the thread pool then finishes the
  // requests already accepted and listen returns.
  http.stop();
  const bool drained = listener.wait_for(options.drain_timeout) == std::future_status::ready;
  if (!drained) {
    log_error("in-flight requests outlived the drain timeout of " + std::to_string(options.drain_timeout.count()) +
              " ms; exiting anyway");
    std::fflush(nullptr);
    std::quick_exit(1);
  }
  models.stop();
  log_info("drained; exiting");
  return 0;
}

}  // namespace sieve::server
