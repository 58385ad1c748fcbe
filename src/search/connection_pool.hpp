#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace sieve::search {

// Read connections of a store, kept for reuse: a lease takes an idle one (or opens a new one) and gives it back when
// it ends. A connection `usable` refuses (cut off, left inside a transaction) is dropped instead of reused; at most
// `keep` idle ones are kept. Thread-safe.
template <typename Connection>
class ConnectionPool {
 public:
  using Open = std::function<std::unique_ptr<Connection>()>;
  using Usable = std::function<bool(const Connection&)>;

  explicit ConnectionPool(Open open, Usable usable = {}, std::size_t keep = 8)
      : open_(std::move(open)), usable_(std::move(usable)), keep_(keep) {}
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;

  // One connection for as long as the lease lives.
  struct Lease {
    const ConnectionPool* owner;
    std::unique_ptr<Connection> db;
    Lease(const ConnectionPool* o, std::unique_ptr<Connection> d) : owner(o), db(std::move(d)) {}
    Lease(Lease&&) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() {
      if (db) owner->give_back(std::move(db));
    }
  };

  [[nodiscard]] Lease lease() const {
    {
      const std::scoped_lock lock(mutex_);
      while (!idle_.empty()) {
        auto db = std::move(idle_.back());
        idle_.pop_back();
        if (!usable_ || usable_(*db)) return {this, std::move(db)};
      }
    }
    return {this, open_()};
  }

 private:
  void give_back(std::unique_ptr<Connection> db) const {
    if (usable_ && !usable_(*db)) return;
    const std::scoped_lock lock(mutex_);
    if (idle_.size() < keep_) idle_.push_back(std::move(db));
  }

  Open open_;
  Usable usable_;
  std::size_t keep_;
  mutable std::mutex mutex_;
  mutable std::vector<std::unique_ptr<Connection>> idle_;
};

}  // namespace sieve::search
