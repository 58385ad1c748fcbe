#pragma once

#include <optional>
#include <string>

namespace httplib {
struct Request;
}

namespace sieve::server {

// Tells whether the client of a request has gone away. cpp-httplib 0.11
// does not hand a handler its socket, so the socket is found once, by the
// request's address pair, among the process's descriptors: while the
// handler runs its connection is open, so no other socket can have that
// pair. Finding it costs a scan of the descriptors; callers look only for
// requests that have already waited a while.
class ClientConnection {
 public:
  explicit ClientConnection(const httplib::Request& request);

  // True once the client closed or reset the connection. A client that
  // sent more (a pipelined request) or is silent is still there.
  [[nodiscard]] bool gone();

 private:
  std::string remote_address_;
  int remote_port_ = -1;
  int local_port_ = -1;
  bool searched_ = false;
  std::optional<int> socket_;
};

}  // namespace sieve::server
