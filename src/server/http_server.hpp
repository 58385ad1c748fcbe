#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "server/http_message.hpp"

namespace sieve::server {

// What one connection and one request may cost the server, and how many
// connections it keeps. Every limit holds before authentication.
struct HttpLimits {
  std::size_t max_header_bytes = 16 * 1024;  // request line and header fields together; 431 beyond
  std::size_t max_header_fields = 100;       // 431 beyond
  std::size_t max_body_bytes = 2'000'000;    // for every framing (length, chunked); 413 beyond
  // Body bytes buffered at once over all connections; a request that would
  // exceed it gets 503 (Retry-After) before its body is read.
  std::size_t max_buffered_body_bytes = 256u << 20;
  std::chrono::milliseconds header_timeout{10'000};  // from a request's first byte to the end of its head
  std::chrono::milliseconds body_timeout{30'000};    // for a request's whole body
  std::chrono::milliseconds idle_timeout{5'000};     // a kept-alive connection waiting for its next request
  std::chrono::milliseconds write_timeout{30'000};   // for a response's whole body
  std::size_t max_connections = 1024;                // open at once
  std::size_t max_connections_per_client = 256;      // open at once from one address
  std::size_t handler_threads = 256;                 // requests handled at once; more wait their turn
};

// The application behind the connections.
class HttpApplication {
 public:
  HttpApplication() = default;
  HttpApplication(const HttpApplication&) = delete;
  HttpApplication& operator=(const HttpApplication&) = delete;
  virtual ~HttpApplication() = default;

  // Decides from the head alone (method, path, headers; no body yet)
  // whether to read the body: nullopt to go on, or the answer to give now
  // (unknown route, missing API key). Runs on the network thread: it must
  // be quick and must not block.
  virtual std::optional<Response> admit(const Request& head) = 0;
  // Answers a whole request. Runs on a handler thread.
  virtual Response handle(Request& request) = 0;
  // The answer to a request the connection layer refuses (400, 408, 411,
  // 413, 431, 503), in the shape of the API of `path` ("" when the head
  // could not be read).
  virtual Response refuse(int status, const std::string& message, const std::string& path) = 0;
};

// What the connection layer has seen, for /metrics.
struct HttpCounters {
  std::uint64_t open = 0;       // connections open now
  std::uint64_t accepted = 0;   // connections accepted in all
  std::uint64_t shed = 0;       // idle or slow connections closed to make room for new ones
  std::uint64_t refused = 0;    // connections refused at the cap with none to shed
  std::uint64_t timed_out = 0;  // connections closed for a head, body or write over its deadline
};

// A socket bound to an address and listening, made before anything slow
// (the models loading) so that an address in use is an error at once and no
// client is refused while they load: connections wait in the backlog.
// HttpServer::listen takes it over; until then it owns the socket.
class BoundSocket {
 public:
  // Binds host:port (port 0: any free one) and listens. Throws sieve::Error
  // with the reason when it cannot (address in use, not an address of this
  // machine, a host name that does not resolve).
  static BoundSocket bind(const std::string& host, int port);
  BoundSocket(BoundSocket&& other) noexcept;
  BoundSocket& operator=(BoundSocket&& other) noexcept;
  BoundSocket(const BoundSocket&) = delete;
  BoundSocket& operator=(const BoundSocket&) = delete;
  ~BoundSocket();
  [[nodiscard]] int port() const noexcept { return port_; }

 private:
  friend class HttpServer;
  BoundSocket(int fd, int port, bool ipv6) : fd_(fd), port_(port), ipv6_(ipv6) {}
  int fd_ = -1;
  int port_ = 0;
  bool ipv6_ = false;
};

// An HTTP/1.1 server for hostile traffic: one network thread multiplexes
// every connection (a slow client costs a socket and a small buffer, not a
// thread), heads and bodies are read with size limits and deadlines, the
// application admits a request from its head before any body byte is read,
// pipelined requests are answered in order, and at the connection caps the
// idle and slowest connections are shed first.
class HttpServer {
 public:
  HttpServer(const HttpLimits& limits, HttpApplication& application);
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;
  ~HttpServer();

  // Serves on `socket` (see BoundSocket); returns its port.
  int listen(BoundSocket socket);
  // Starts the network thread and the handler threads.
  void start();
  // Stops accepting, closes every connection that has not sent a complete
  // request, answers the requests already read (each with "Connection:
  // close"), and waits up to `timeout` for them. True when all were answered.
  bool drain(std::chrono::milliseconds timeout);
  [[nodiscard]] HttpCounters counters() const;
  [[nodiscard]] const HttpLimits& limits() const;

  struct Impl;  // the connections' shared state (http_server.cpp)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace sieve::server
