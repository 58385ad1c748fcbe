// The Model Context Protocol over streamable HTTP at /mcp: POST carries one
// JSON-RPC message (or a batch) and gets its answer as application/json;
// `initialize` opens a session (Mcp-Session-Id), DELETE ends it, GET (the
// server-to-client event stream) is not offered. The API keys hold as on
// every other route (the router checks them from the head).
#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>

#include "server/mcp.hpp"
#include "server/routes.hpp"

namespace sieve::server {
namespace mcp_http {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr const char* kSessionHeader = "Mcp-Session-Id";
constexpr const char* kVersionHeader = "MCP-Protocol-Version";
// Sessions kept at once; beyond, the least recently used is ended.
constexpr std::size_t kMaxSessions = 4096;

// The open sessions, by id.
class Sessions {
 public:
  std::string open(const McpSession& session) {
    std::array<std::uint64_t, 2> words{};
    {
      std::lock_guard lock(mutex_);
      for (auto& word : words) word = random_();
      if (sessions_.size() >= kMaxSessions) {
        auto oldest = sessions_.begin();
        for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
          if (it->second.used < oldest->second.used) oldest = it;
        }
        sessions_.erase(oldest);
      }
    }
    static constexpr char kHex[] = "0123456789abcdef";
    std::string id;
    for (const std::uint64_t word : words) {
      for (int shift = 60; shift >= 0; shift -= 4) id.push_back(kHex[(word >> static_cast<unsigned>(shift)) & 15U]);
    }
    std::lock_guard lock(mutex_);
    sessions_[id] = {session, Clock::now()};
    return id;
  }
  std::optional<McpSession> find(const std::string& id) {
    std::lock_guard lock(mutex_);
    const auto it = sessions_.find(id);
    if (it == sessions_.end()) return std::nullopt;
    it->second.used = Clock::now();
    return it->second.session;
  }
  // Keeps what a message changed (notifications/initialized), if the session is still open.
  void update(const std::string& id, const McpSession& session) {
    std::lock_guard lock(mutex_);
    const auto it = sessions_.find(id);
    if (it != sessions_.end()) it->second.session = session;
  }
  bool close(const std::string& id) {
    std::lock_guard lock(mutex_);
    return sessions_.erase(id) > 0;
  }

 private:
  struct Entry {
    McpSession session;
    Clock::time_point used;
  };
  std::mutex mutex_;
  std::map<std::string, Entry> sessions_;
  std::mt19937_64 random_{std::random_device{}()};
};

void answer(Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(dump(body), "application/json");
}

void refuse(Response& res, int status, int code, const std::string& message) {
  answer(res, status, McpServer::error_response(nullptr, code, message));
}

// Whether `origin` names this machine: http(s)://localhost, 127.0.0.1 or [::1], any port.
bool loopback_origin(std::string_view origin) {
  for (const std::string_view scheme : {"http://", "https://"}) {
    if (origin.substr(0, scheme.size()) != scheme) continue;
    std::string_view host = origin.substr(scheme.size());
    if (host.substr(0, 5) == "[::1]") {
      host.remove_prefix(5);
    } else {
      const auto colon = host.find(':');
      const std::string_view name = host.substr(0, colon);
      if (name != "localhost" && name != "127.0.0.1") return false;
      host.remove_prefix(name.size());
    }
    if (host.empty()) return true;
    if (host.front() != ':' || host.size() == 1) return false;
    return host.substr(1).find_first_not_of("0123456789") == std::string_view::npos;
  }
  return false;
}

// A browser's request from a page of another site (DNS rebinding: a page
// whose host name was pointed at this machine) is refused: only pages of
// this machine and the origins of --cors-allow-origin may call. Clients
// that are not browsers send no Origin.
bool origin_allowed(const ServerOptions& options, const Request& req) {
  const std::string origin = req.header("Origin");
  if (origin.empty() || loopback_origin(origin)) return true;
  for (const std::string& allowed : options.cors_origins) {
    if (allowed == "*" || allowed == origin) return true;
  }
  return false;
}

// The checks every method of /mcp shares; false when `res` holds the refusal.
bool admitted(const ServerOptions& options, const Request& req, Response& res) {
  if (!origin_allowed(options, req)) {
    refuse(res, 403, McpServer::kInvalidRequest,
           "the Origin " + req.header("Origin") + " may not call this server (allow it with --cors-allow-origin)");
    return false;
  }
  const std::string version = req.header(kVersionHeader);
  if (!version.empty() && !McpServer::supports(version)) {
    refuse(res, 400, McpServer::kInvalidRequest, "unsupported MCP-Protocol-Version " + version);
    return false;
  }
  return true;
}

bool accepts_json(const Request& req) {
  const std::string accept = req.header("Accept");
  return accept.empty() || accept.find("application/json") != std::string::npos ||
         accept.find("*/*") != std::string::npos || accept.find("application/*") != std::string::npos;
}

bool is_initialize(const json& message) {
  if (!message.is_object()) return false;
  const auto method = message.find("method");
  return method != message.end() && *method == "initialize";
}

void post(const ServerOptions& options, const McpServer& mcp, Sessions& sessions, const Request& req, Response& res) {
  if (!admitted(options, req, res)) return;
  if (!accepts_json(req)) {
    refuse(res, 406, McpServer::kInvalidRequest, "the client must accept application/json");
    return;
  }
  json message;
  try {
    message = json::parse(req.body);
  } catch (const json::exception& e) {
    refuse(res, 400, McpServer::kParseError, std::string("Parse error: ") + e.what());
    return;
  }
  if (is_initialize(message)) {
    McpSession session;
    auto answer_json = mcp.handle(message, session);
    if (answer_json && answer_json->contains("result")) {
      res.set_header(kSessionHeader, sessions.open(session));
      if (!options.cors_origins.empty()) res.set_header("Access-Control-Expose-Headers", kSessionHeader);
    }
    answer(res, 200, *answer_json);
    return;
  }
  const std::string id = req.header(kSessionHeader);
  if (id.empty()) {
    refuse(res, 400, McpServer::kInvalidRequest, "the Mcp-Session-Id header is required: send \"initialize\" first");
    return;
  }
  auto session = sessions.find(id);
  if (!session) {
    refuse(res, 404, McpServer::kInvalidRequest,
           "no such session (it ended, or the server restarted): initialize again");
    return;
  }
  const std::string version = req.header(kVersionHeader);
  if (!version.empty() && version != session->protocol_version) {
    refuse(res, 400, McpServer::kInvalidRequest,
           "MCP-Protocol-Version " + version + " is not the session's (" + session->protocol_version + ")");
    return;
  }
  const auto reply = mcp.handle(message, *session);
  sessions.update(id, *session);
  if (!reply) {  // notifications and responses only
    res.status = 202;
    return;
  }
  answer(res, 200, *reply);
}

void remove(const ServerOptions& options, Sessions& sessions, const Request& req, Response& res) {
  if (!admitted(options, req, res)) return;
  const std::string id = req.header(kSessionHeader);
  if (id.empty()) {
    refuse(res, 400, McpServer::kInvalidRequest, "the Mcp-Session-Id header is required");
    return;
  }
  if (!sessions.close(id)) {
    refuse(res, 404, McpServer::kInvalidRequest, "no such session");
    return;
  }
  res.status = 204;
}

}  // namespace mcp_http

void add_mcp_routes(Router& http, ServerState& state, const McpServer& mcp) {
  auto sessions = std::make_shared<mcp_http::Sessions>();
  const ServerOptions& options = state.options;
  add_raw_route(http, state, "POST", "/mcp", ApiStyle::kJsonRpc,
                [&options, &mcp, sessions](const Request& req, Response& res) {
                  mcp_http::post(options, mcp, *sessions, req, res);
                });
  add_raw_route(
      http, state, "DELETE", "/mcp", ApiStyle::kJsonRpc,
      [&options, sessions](const Request& req, Response& res) { mcp_http::remove(options, *sessions, req, res); });
  add_raw_route(http, state, "GET", "/mcp", ApiStyle::kJsonRpc, [&options](const Request& req, Response& res) {
    if (!mcp_http::admitted(options, req, res)) return;
    res.set_header("Allow", "POST, DELETE");
    mcp_http::refuse(res, 405, McpServer::kInvalidRequest, "this server sends no event stream: POST messages to /mcp");
  });
}

}  // namespace sieve::server
