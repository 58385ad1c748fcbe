#include "server/client_connection.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdlib>
#include <memory>

namespace sieve::server {
namespace {

// The address and port of a socket address, as cpp-httplib reports them.
bool address_of(const sockaddr_storage& address, std::string& host, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    const auto& a = reinterpret_cast<const sockaddr_in&>(address);
    if (inet_ntop(AF_INET, &a.sin_addr, text, sizeof(text)) == nullptr) return false;
    port = ntohs(a.sin_port);
  } else if (address.ss_family == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6&>(address);
    if (inet_ntop(AF_INET6, &a.sin6_addr, text, sizeof(text)) == nullptr) return false;
    port = ntohs(a.sin6_port);
  } else {
    return false;
  }
  host = text;
  return true;
}

std::optional<int> find_socket(const std::string& remote_address, int remote_port, int local_port) {
  const std::unique_ptr<DIR, int (*)(DIR*)> dir(opendir("/proc/self/fd"), closedir);
  if (!dir) return std::nullopt;
  while (const dirent* entry = readdir(dir.get())) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0') continue;
    sockaddr_storage local{};
    sockaddr_storage peer{};
    socklen_t local_size = sizeof(local);
    socklen_t peer_size = sizeof(peer);
    const int descriptor = static_cast<int>(fd);
    if (getsockname(descriptor, reinterpret_cast<sockaddr*>(&local), &local_size) != 0) continue;
    std::string host;
    int port = -1;
    if (!address_of(local, host, port) || port != local_port) continue;
    if (getpeername(descriptor, reinterpret_cast<sockaddr*>(&peer), &peer_size) != 0) continue;
    if (address_of(peer, host, port) && port == remote_port && host == remote_address) return descriptor;
  }
  return std::nullopt;
}

}  // namespace

ClientConnection::ClientConnection(const httplib::Request& request)
    : remote_address_(request.remote_addr), remote_port_(request.remote_port), local_port_(request.local_port) {}

bool ClientConnection::gone() {
  if (!searched_) {
    searched_ = true;
    socket_ = find_socket(remote_address_, remote_port_, local_port_);
  }
  if (!socket_) return false;
  char byte = 0;
  const ssize_t n = recv(*socket_, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n == 0) return true;  // orderly close
  return n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
}

}  // namespace sieve::server
