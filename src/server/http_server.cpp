// The connection layer on Boost.Beast's HTTP/1.1 parser and Boost.Asio
// (Debian's libboost-dev): Beast's parser is strict about framing (it
// refuses conflicting Content-Length and Transfer-Encoding headers) and lets
// a server read a request's head, decide, and only then read its body under
// a limit that holds for chunked bodies too; Asio multiplexes every
// connection on one thread, so that slow clients cost sockets, not threads.
#include "server/http_server.hpp"

#include <malloc.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/file_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "sieve/error.hpp"
#include "sieve/logging.hpp"

namespace sieve::server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

// Bytes read past a refused request's head before its connection is
// closed, so that the client reads the answer instead of a reset; and how
// long that may take.
constexpr std::size_t kLingerBytes = 4u << 20;
constexpr std::chrono::milliseconds kLingerTime{2'000};
// A request or answer from this size up is followed by a trim of the allocator.
constexpr std::size_t kLargeBytes = 1u << 20;
// File descriptors kept for everything but connections (models, logs, stores).
constexpr std::size_t kReservedDescriptors = 64;

// Requests handled at once on their own threads: handlers block (they wait
// for the batch scheduler), the network thread must not.
class HandlerPool {
 public:
  explicit HandlerPool(std::size_t threads) : count_(std::max<std::size_t>(threads, 1)) {}
  HandlerPool(const HandlerPool&) = delete;
  HandlerPool& operator=(const HandlerPool&) = delete;
  ~HandlerPool() { stop(); }

  void start() {
    for (std::size_t i = 0; i < count_; ++i) threads_.emplace_back([this] { run(); });
  }
  void post(std::function<void()> job) {
    {
      const std::lock_guard lock(mutex_);
      jobs_.push_back(std::move(job));
    }
    ready_.notify_one();
  }
  void stop() {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_all();
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
    threads_.clear();
  }

 private:
  void run() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      job();
    }
  }

  std::size_t count_;
  std::vector<std::thread> threads_;
  std::deque<std::function<void()>> jobs_;
  std::mutex mutex_;
  std::condition_variable ready_;
  bool stopping_ = false;
};

// Where a connection is, for deadlines, shedding and draining.
enum class Phase {
  kWaiting,   // kept alive, no byte of a next request yet
  kHead,      // reading a request's head
  kBody,      // reading its body
  kHandling,  // the application is answering
  kWriting,   // writing the answer
  kLingering  // answered a refused request; reading what the client still sends, then closing
};

bool sheddable(Phase phase) {
  return phase == Phase::kWaiting || phase == Phase::kHead || phase == Phase::kBody;
}

bool is_timeout(const beast::error_code& ec) {
  return ec == beast::error::timeout;
}

}  // namespace

class Connection;

struct HttpServer::Impl {
  Impl(const HttpLimits& l, HttpApplication& a) : limits(l), application(a), acceptor(io), pool(l.handler_threads) {}

  HttpLimits limits;
  HttpApplication& application;
  asio::io_context io;
  // Keeps io.run() going while no socket has an operation pending (during a
  // drain, when every connection left is waiting for its handler): answers
  // are posted to it from the handler threads.
  asio::executor_work_guard<asio::io_context::executor_type> keep_running{io.get_executor()};
  tcp::acceptor acceptor;
  asio::steady_timer accept_retry{io};
  HandlerPool pool;
  std::thread network;

  // Touched on the network thread only.
  std::unordered_set<Connection*> connections;
  std::unordered_map<std::string, std::size_t> per_client;
  std::size_t buffered_body_bytes = 0;
  bool draining = false;

  // Requests read and not yet answered; drain() waits for none.
  std::mutex busy_mutex;
  std::condition_variable idle;
  std::size_t busy = 0;

  std::atomic<std::uint64_t> open{0};
  std::atomic<std::uint64_t> accepted{0};
  std::atomic<std::uint64_t> shed{0};
  std::atomic<std::uint64_t> refused{0};
  std::atomic<std::uint64_t> timed_out{0};

  void accept();
  void admit(tcp::socket socket);
  bool shed_one(const std::string* client);
  void begin_request() {
    const std::lock_guard lock(busy_mutex);
    ++busy;
  }
  void end_request() {
    {
      const std::lock_guard lock(busy_mutex);
      --busy;
    }
    idle.notify_all();
  }
};

namespace {

using Impl = HttpServer::Impl;

}  // namespace

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(Impl& server, tcp::socket socket, std::string client)
      : server_(server),
        stream_(std::move(socket)),
        buffer_(server.limits.max_header_bytes + 64 * 1024),
        client_(std::move(client)) {}

  void start() {
    server_.connections.insert(this);
    ++server_.per_client[client_];
    ++server_.open;
    // A new connection's head is due within the head deadline of its accept.
    begin_head();
  }

  [[nodiscard]] Phase phase() const { return phase_; }
  [[nodiscard]] Clock::time_point since() const { return since_; }
  [[nodiscard]] const std::string& client() const { return client_; }

  // Closes the connection now (shedding, draining): a pending read ends
  // with an error and the connection is forgotten.
  void shed() { close(); }

 private:
  void enter(Phase phase) {
    phase_ = phase;
    since_ = Clock::now();
  }

  // Kept alive: waits for the first byte of the next request (or takes
  // pipelined bytes already read) under the idle deadline.
  void wait_next() {
    if (buffer_.size() > 0) {
      begin_head();
      return;
    }
    enter(Phase::kWaiting);
    stream_.expires_after(server_.limits.idle_timeout);
    stream_.async_read_some(buffer_.prepare(4096),
                            [self = shared_from_this()](const beast::error_code& ec, std::size_t n) {
                              if (ec) {
                                self->close();
                                return;
                              }
                              self->buffer_.commit(n);
                              self->begin_head();
                            });
  }

  void begin_head() {
    if (closed_) return;
    if (server_.draining) {
      close();
      return;
    }
    enter(Phase::kHead);
    head_ = Request{};
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(server_.limits.max_header_bytes, 1u << 30)));
    parser_->body_limit(server_.limits.max_body_bytes);
    stream_.expires_after(server_.limits.header_timeout);
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](const beast::error_code& ec, std::size_t) { self->on_head(ec); });
  }

  void on_head(const beast::error_code& ec) {
    if (closed_) return;
    if (ec) {
      if (ec == http::error::header_limit || ec == beast::http::error::buffer_overflow) {
        refuse(431, "the request head is larger than the " + std::to_string(server_.limits.max_header_bytes) +
                        " bytes allowed");
      } else if (ec == http::error::body_limit) {
        // The head is whole (its Content-Length is over the limit): the
        // answer takes the shape of its route's API.
        const auto target = parser_->get().target();
        if (const auto split = split_target(std::string_view(target.data(), target.size()))) head_.path = split->first;
        refuse(413, body_limit_message());
      } else if (is_timeout(ec)) {
        ++server_.timed_out;
        close();
      } else if (ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset ||
                 ec == asio::error::operation_aborted || ec == asio::error::bad_descriptor ||
                 ec == http::error::partial_message) {
        close();
      } else {
        refuse(400, std::string("malformed request: ") + ec.message());
      }
      return;
    }
    const auto& head = parser_->get();
    head_ = Request{};
    const auto target = split_target(std::string_view(head.target().data(), head.target().size()));
    if (!target) {
      // The path before any query, as sent, picks the API whose error shape the answer takes.
      const std::string_view raw(head.target().data(), head.target().size());
      head_.path = std::string(raw.substr(0, raw.find('?')));
      refuse(400, "malformed request target: a bad percent-encoding, or a NUL byte, in the path or query");
      return;
    }
    head_.method = std::string(head.method_string());
    head_.path = target->first;
    {
      const std::string_view sent(head.target().data(), head.target().size());
      head_.raw_path = std::string(sent.substr(0, sent.find('?')));
    }
    head_.params = target->second;
    head_.remote_address = client_;
    std::size_t fields = 0;
    for (const auto& field : head) {
      if (++fields > server_.limits.max_header_fields) {
        refuse(431, "the request has more than the " + std::to_string(server_.limits.max_header_fields) +
                        " header fields allowed");
        return;
      }
      head_.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    }
    // Framing: a body comes with Content-Length or chunked, nothing else.
    const bool chunked = parser_->chunked();
    const bool has_length = parser_->content_length().has_value();
    if (head.find(http::field::transfer_encoding) != head.end() && !chunked) {
      refuse(400, "Transfer-Encoding other than chunked is not accepted");
      return;
    }
    const bool body_method = head_.method == "POST" || head_.method == "PUT" || head_.method == "PATCH";
    if (body_method && !chunked && !has_length) {
      refuse(411, "a request body needs a Content-Length header (or chunked transfer encoding)");
      return;
    }
    if (has_length && *parser_->content_length() > server_.limits.max_body_bytes) {
      refuse(413, body_limit_message());
      return;
    }
    if (std::optional<Response> answer = server_.application.admit(head_)) {
      // Refused from the head (no route, no key): the body is never read,
      // and a connection that has one coming is closed after the answer.
      respond(std::move(*answer), parser_->keep_alive());
      return;
    }
    if (parser_->is_done()) {
      dispatch();
      return;
    }
    // Body bytes this request may buffer, against the budget of all connections.
    const std::size_t reserve =
        has_length ? static_cast<std::size_t>(*parser_->content_length()) : server_.limits.max_body_bytes;
    if (server_.buffered_body_bytes + reserve > server_.limits.max_buffered_body_bytes) {
      refuse(503, "the server is reading too many request bodies at once; retry shortly");
      return;
    }
    reserved_ = reserve;
    server_.buffered_body_bytes += reserved_;
    const auto expect = head.find(http::field::expect);
    if (expect != head.end() &&
        equal_ignoring_case(std::string_view(expect->value().data(), expect->value().size()), "100-continue")) {
      static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      stream_.expires_after(server_.limits.write_timeout);
      asio::async_write(stream_, asio::buffer(kContinue),
                        [self = shared_from_this()](const beast::error_code& e, std::size_t) {
                          if (e) {
                            self->close();
                            return;
                          }
                          self->read_body();
                        });
      return;
    }
    read_body();
  }

  void read_body() {
    if (closed_) return;
    enter(Phase::kBody);
    stream_.expires_after(server_.limits.body_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](const beast::error_code& ec, std::size_t) { self->on_body(ec); });
  }

  void on_body(const beast::error_code& ec) {
    if (closed_) return;
    release_reserved();
    if (ec) {
      if (ec == http::error::body_limit) {
        refuse(413, body_limit_message());
      } else if (is_timeout(ec)) {
        ++server_.timed_out;
        close();
      } else if (ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset ||
                 ec == asio::error::operation_aborted || ec == http::error::partial_message) {
        close();
      } else {
        refuse(400, std::string("malformed request body: ") + ec.message());
      }
      return;
    }
    dispatch();
  }

  // The whole request goes to a handler thread; its answer comes back here.
  void dispatch() {
    enter(Phase::kHandling);
    stream_.expires_never();
    keep_alive_ = parser_->keep_alive();
    head_.body = std::move(parser_->get().body());
    large_request_ = head_.body.size() >= kLargeBytes;
    head_request_ = head_.method == "HEAD";
    const int fd = stream_.socket().native_handle();
    // While the request is handled the connection stays open and nothing
    // else reads it, so its descriptor is this connection's.
    head_.client_gone = [fd] {
      char byte = 0;
      const ssize_t n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
      if (n == 0) return true;
      return n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
    };
    parser_.reset();
    server_.begin_request();
    in_flight_ = true;
    server_.pool.post([self = shared_from_this()] {
      Response response;
      try {
        response = self->server_.application.handle(self->head_);
      } catch (const std::exception& e) {
        log_error(std::string("unexpected error answering a request: ") + e.what());
        response = self->server_.application.refuse(500, "internal error", self->head_.path);
      }
      self->head_ = Request{};
      asio::post(self->server_.io, [self, response = std::move(response)]() mutable {
        self->respond(std::move(response), self->keep_alive_);
      });
    });
  }

  // Answers a request the connection layer refuses; the connection closes after.
  void refuse(int status, const std::string& message) {
    respond(server_.application.refuse(status, message, head_.path), false);
  }

  void respond(Response answer, bool keep_alive) {
    if (closed_) {
      finish_request();
      return;
    }
    const bool body_unread = parser_.has_value() && !parser_->is_done();
    keep_alive = keep_alive && !server_.draining && !body_unread;
    response_.emplace(static_cast<http::status>(answer.status), 11);
    for (auto& [name, value] : answer.headers) response_->insert(name, value);
    if (!answer.content_type.empty()) response_->set(http::field::content_type, answer.content_type);
    if (answer.status == 429 || answer.status == 503) response_->set(http::field::retry_after, "1");
    response_->keep_alive(keep_alive);
    response_->body() = std::move(answer.body);
    response_->prepare_payload();
    if (head_request_) response_->body().clear();  // Content-Length stays the GET answer's
    linger_after_ = !keep_alive;
    enter(Phase::kWriting);
    stream_.expires_after(server_.limits.write_timeout);
    auto write = [self = shared_from_this()](const beast::error_code& ec, std::size_t) { self->on_written(ec); };
    if (answer.file && send_file(answer, write)) return;
    head_request_ = false;
    http::async_write(stream_, *response_, std::move(write));
  }

  // A file body goes out in blocks as the socket takes them (Beast's file body over a copy of the
  // descriptor); a HEAD request gets the head alone, with the file's length.
  template <class Handler>
  bool send_file(const Response& answer, const Handler& write) {
    if (head_request_) {
      response_->content_length(answer.file_size);
      head_request_ = false;
      return false;
    }
    beast::error_code ec;
    beast::file_posix file;
    const int copy = ::dup(*answer.file);
    if (copy < 0) return false;
    file.native_handle(copy);
    file_response_.emplace(std::move(response_->base()));
    file_response_->body().reset(std::move(file), ec);
    if (ec || file_response_->body().size() != answer.file_size) {
      // Not the file that was checked: its answer is the error the client would get mid-way.
      file_response_.reset();
      response_->result(http::status::internal_server_error);
      response_->body() = R"({"error":{"message":"the file changed while it was being sent","type":"server_error"}})";
      response_->set(http::field::content_type, "application/json");
      response_->prepare_payload();
      return false;
    }
    file_response_->content_length(answer.file_size);
    http::async_write(stream_, *file_response_, write);
    return true;
  }

  void on_written(const beast::error_code& ec) {
    finish_request();
    const bool large = large_request_ || (response_ && response_->body().size() >= kLargeBytes);
    response_.reset();
    file_response_.reset();
    large_request_ = false;
    // A large request or answer leaves freed memory in the allocator's
    // arenas; it goes back to the system, off the network thread.
    if (large) server_.pool.post([] { malloc_trim(0); });
    if (closed_) return;
    if (ec) {
      if (is_timeout(ec)) ++server_.timed_out;
      close();
      return;
    }
    if (linger_after_) {
      linger();
      return;
    }
    wait_next();
  }

  void finish_request() {
    if (in_flight_) {
      in_flight_ = false;
      server_.end_request();
    }
  }

  // Half-closes, then reads and drops what the client still sends for a
  // while, so that it reads the answer rather than a connection reset.
  void linger() {
    enter(Phase::kLingering);
    parser_.reset();
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(kLingerTime);
    drain_input();
  }

  void drain_input() {
    static thread_local std::array<char, 16 * 1024> sink;
    stream_.async_read_some(asio::buffer(sink),
                            [self = shared_from_this()](const beast::error_code& ec, std::size_t n) {
                              self->lingered_ += n;
                              if (ec || self->lingered_ >= kLingerBytes) {
                                self->close();
                                return;
                              }
                              self->drain_input();
                            });
  }

  void release_reserved() {
    server_.buffered_body_bytes -= reserved_;
    reserved_ = 0;
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    release_reserved();
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
    server_.connections.erase(this);
    if (auto it = server_.per_client.find(client_); it != server_.per_client.end() && --it->second == 0) {
      server_.per_client.erase(it);
    }
    --server_.open;
    // A request being handled is finished when its answer comes back.
    if (phase_ != Phase::kHandling) finish_request();
  }

  [[nodiscard]] std::string body_limit_message() const {
    return "the request body is larger than the " + std::to_string(server_.limits.max_body_bytes) +
           " bytes allowed (--max-body-bytes)";
  }

  Impl& server_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::string client_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::string_body>> response_;
  std::optional<http::response<http::file_body>> file_response_;
  Request head_;
  Phase phase_ = Phase::kHead;
  Clock::time_point since_ = Clock::now();
  std::size_t reserved_ = 0;
  std::size_t lingered_ = 0;
  bool keep_alive_ = false;
  bool head_request_ = false;
  bool linger_after_ = false;
  bool in_flight_ = false;
  bool large_request_ = false;
  bool closed_ = false;
};

void HttpServer::Impl::accept() {
  acceptor.async_accept([this](const beast::error_code& ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
    if (ec) {
      // Out of descriptors (EMFILE, ENFILE) or a transient error: wait a
      // little rather than spin; connections closing free descriptors.
      accept_retry.expires_after(std::chrono::milliseconds(50));
      accept_retry.async_wait([this](const beast::error_code& e) {
        if (!e) accept();
      });
      return;
    }
    admit(std::move(socket));
    accept();
  });
}

// The idle or slowest connection (of `client`, or of anyone), closed to make room.
bool HttpServer::Impl::shed_one(const std::string* client) {
  Connection* oldest = nullptr;
  for (Connection* c : connections) {
    if (!sheddable(c->phase()) || (client != nullptr && c->client() != *client)) continue;
    // Waiting and head-reading connections go before body-reading ones.
    const auto rank = [](const Connection* x) { return x->phase() == Phase::kBody ? 1 : 0; };
    if (oldest == nullptr || rank(c) < rank(oldest) || (rank(c) == rank(oldest) && c->since() < oldest->since())) {
      oldest = c;
    }
  }
  if (oldest == nullptr) return false;
  ++shed;
  oldest->shed();
  return true;
}

void HttpServer::Impl::admit(tcp::socket socket) {
  beast::error_code ec;
  const tcp::endpoint remote = socket.remote_endpoint(ec);
  if (ec) return;
  std::string client = remote.address().to_string();
  const auto full = [&] {
    const auto it = per_client.find(client);
    return it != per_client.end() && it->second >= limits.max_connections_per_client;
  };
  bool room = true;
  if (full()) room = shed_one(&client);
  if (room && connections.size() >= limits.max_connections) room = shed_one(nullptr);
  if (!room || draining) {
    ++refused;
    // Best effort, without waiting: a fresh socket's send buffer is empty.
    static const char kBusy[] =
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: 49\r\n"
        "Retry-After: 1\r\nConnection: close\r\n\r\n{\"error\":\"too many connections; retry shortly\"}\n";
    (void)::send(socket.native_handle(), kBusy, sizeof(kBusy) - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
    socket.shutdown(tcp::socket::shutdown_both, ec);
    socket.close(ec);
    return;
  }
  ++accepted;
  socket.set_option(tcp::no_delay(true), ec);
  std::make_shared<Connection>(*this, std::move(socket), std::move(client))->start();
}

HttpServer::HttpServer(const HttpLimits& limits, HttpApplication& application)
    : impl_(std::make_unique<Impl>(limits, application)) {
  // Every connection is a descriptor: raise the soft limit to the hard one,
  // and keep the connection cap within it.
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0) {
    if (files.rlim_cur < files.rlim_max) {
      files.rlim_cur = files.rlim_max;
      (void)setrlimit(RLIMIT_NOFILE, &files);
      (void)getrlimit(RLIMIT_NOFILE, &files);
    }
    const std::size_t available = files.rlim_cur > kReservedDescriptors * 2
                                      ? static_cast<std::size_t>(files.rlim_cur) - kReservedDescriptors
                                      : kReservedDescriptors;
    if (impl_->limits.max_connections > available) {
      log_warn("at most " + std::to_string(available) + " connections: the process may open " +
               std::to_string(files.rlim_cur) + " files (ulimit -n)");
      impl_->limits.max_connections = available;
    }
  }
}

HttpServer::~HttpServer() {
  impl_->keep_running.reset();
  impl_->io.stop();
  if (impl_->network.joinable()) impl_->network.join();
  impl_->pool.stop();
}

BoundSocket BoundSocket::bind(const std::string& host, int port) {
  const std::string where = host + ":" + std::to_string(port);
  asio::io_context io;
  beast::error_code ec;
  tcp::endpoint endpoint;
  const auto address = asio::ip::make_address(host, ec);
  if (!ec) {
    endpoint = tcp::endpoint(address, static_cast<unsigned short>(port));
  } else {
    // A host name: its first address.
    tcp::resolver resolver(io);
    const auto found = resolver.resolve(host, std::to_string(port), ec);
    if (ec || found.empty()) {
      throw Error(ErrorCode::kInvalidArgument, "cannot listen on " + where + ": the host name does not resolve (" +
                                                   (ec ? ec.message() : std::string("no address")) + "); see --host");
    }
    endpoint = found.begin()->endpoint();
  }
  tcp::acceptor acceptor(io);
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  // A burst of clients connecting at once must not overflow the backlog.
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    std::string why = ec.message();
    if (ec == asio::error::address_in_use) {
      why = "the port is in use by another program; choose another with --port, or stop the other server";
    } else if (ec == boost::system::errc::address_not_available) {
      why = "not an address of this machine; see --host";
    } else if (ec == asio::error::access_denied) {
      why = "permission denied (ports under 1024 need privileges); choose another with --port";
    }
    throw Error(ErrorCode::kRuntime, "cannot listen on " + where + ": " + why);
  }
  const int bound_port = acceptor.local_endpoint(ec).port();
  const bool ipv6 = endpoint.protocol() == tcp::v6();
  return {acceptor.release(), bound_port, ipv6};
}

BoundSocket::BoundSocket(BoundSocket&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), port_(other.port_), ipv6_(other.ipv6_) {}

BoundSocket& BoundSocket::operator=(BoundSocket&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    port_ = other.port_;
    ipv6_ = other.ipv6_;
  }
  return *this;
}

BoundSocket::~BoundSocket() {
  if (fd_ >= 0) ::close(fd_);
}

int HttpServer::listen(BoundSocket socket) {
  beast::error_code ec;
  impl_->acceptor.assign(socket.ipv6_ ? tcp::v6() : tcp::v4(), socket.fd_, ec);
  if (ec)
    throw Error(ErrorCode::kRuntime, "cannot serve on port " + std::to_string(socket.port_) + ": " + ec.message());
  socket.fd_ = -1;  // the acceptor's now
  return socket.port_;
}

void HttpServer::start() {
  impl_->pool.start();
  impl_->accept();
  impl_->network = std::thread([this] {
    for (;;) {
      try {
        impl_->io.run();
        return;
      } catch (const std::exception& e) {
        log_error(std::string("HTTP connection error: ") + e.what());
      }
    }
  });
}

bool HttpServer::drain(std::chrono::milliseconds timeout) {
  asio::post(impl_->io, [impl = impl_.get()] {
    impl->draining = true;
    beast::error_code ignored;
    impl->acceptor.close(ignored);
    // Connections without a complete request are closed now; the others
    // close after their answer.
    std::vector<Connection*> idle;
    for (Connection* c : impl->connections) {
      if (sheddable(c->phase()) || c->phase() == Phase::kLingering) idle.push_back(c);
    }
    for (Connection* c : idle) c->shed();
  });
  std::unique_lock lock(impl_->busy_mutex);
  return impl_->idle.wait_for(lock, timeout, [this] { return impl_->busy == 0; });
}

HttpCounters HttpServer::counters() const {
  return {impl_->open.load(), impl_->accepted.load(), impl_->shed.load(), impl_->refused.load(),
          impl_->timed_out.load()};
}

const HttpLimits& HttpServer::limits() const {
  return impl_->limits;
}

}  // namespace sieve::server
