#include "search/ann_graph.hpp"

#include <fcntl.h>
#include <hnswlib/hnswlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "sieve/error.hpp"

namespace sieve::search {

struct AnnGraph::Impl {
  explicit Impl(std::size_t width) : space(width), dimension(width) {}
  hnswlib::InnerProductSpace space;
  std::size_t dimension;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> graph;
  // hnswlib's ef is one setting for the whole graph: searches with different
  // ef must not interleave.
  mutable std::mutex search_mutex;
};

AnnGraph::AnnGraph(std::size_t dimension, std::size_t capacity, std::size_t m, std::size_t ef_construction)
    : impl_(std::make_unique<Impl>(dimension)) {
  impl_->graph = std::make_unique<hnswlib::HierarchicalNSW<float>>(&impl_->space, std::max<std::size_t>(capacity, 16),
                                                                   m, ef_construction, 100);
}

AnnGraph::AnnGraph(const std::filesystem::path& file, std::size_t dimension)
    : impl_(std::make_unique<Impl>(dimension)) {
  try {
    impl_->graph = std::make_unique<hnswlib::HierarchicalNSW<float>>(&impl_->space, file.string());
  } catch (const std::exception& e) {
    throw Error(ErrorCode::kParse, "nearest-neighbour graph " + file.string() + ": " + e.what());
  }
}

AnnGraph::~AnnGraph() = default;

void AnnGraph::add(std::span<const std::int64_t> labels, std::span<const float> vectors, std::size_t threads) {
  auto& graph = *impl_->graph;
  const std::size_t needed = graph.cur_element_count + labels.size();
  if (needed > graph.max_elements_) graph.resizeIndex(std::max(needed, graph.max_elements_ * 3 / 2));
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < labels.size(); i = next++) {
      graph.addPoint(vectors.data() + i * impl_->dimension, static_cast<hnswlib::labeltype>(labels[i]));
    }
  };
  threads = std::clamp<std::size_t>(threads, 1, std::max<std::size_t>(1, labels.size() / 64));
  std::vector<std::jthread> workers;
  for (std::size_t t = 1; t < threads; ++t) workers.emplace_back(work);
  work();
}

void AnnGraph::remove(std::int64_t label) {
  auto& graph = *impl_->graph;
  const auto found = graph.label_lookup_.find(static_cast<hnswlib::labeltype>(label));
  if (found != graph.label_lookup_.end() && !graph.isMarkedDeleted(found->second)) {
    graph.markDeletedInternal(found->second);
  }
}

std::vector<ScoredChunk> AnnGraph::search(std::span<const float> query, std::size_t n, std::size_t ef) const {
  std::vector<ScoredChunk> found;
  auto& graph = *impl_->graph;
  if (n == 0 || graph.cur_element_count == graph.num_deleted_) return found;
  std::priority_queue<std::pair<float, hnswlib::labeltype>> queue;
  {
    const std::scoped_lock lock(impl_->search_mutex);
    graph.setEf(std::max(ef, n));
    queue = graph.searchKnn(query.data(), n);
  }
  found.resize(queue.size());
  // The queue pops the farthest first.
  for (std::size_t i = queue.size(); i-- > 0; queue.pop()) {
    found[i] = {static_cast<std::int64_t>(queue.top().second), 1.0 - static_cast<double>(queue.top().first)};
  }
  return found;
}

bool AnnGraph::contains(std::int64_t label) const {
  const auto& graph = *impl_->graph;
  const auto found = graph.label_lookup_.find(static_cast<hnswlib::labeltype>(label));
  return found != graph.label_lookup_.end() && !graph.isMarkedDeleted(found->second);
}

std::size_t AnnGraph::elements() const {
  return impl_->graph->cur_element_count;
}
std::size_t AnnGraph::deleted() const {
  return impl_->graph->num_deleted_;
}

void AnnGraph::save(const std::filesystem::path& file) const {
  impl_->graph->saveIndex(file.string());
  // hnswlib's ofstream does not sync: the file must be on disk before the
  // database names it.
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  const bool synced = fd >= 0 && ::fsync(fd) == 0;
  if (fd >= 0) ::close(fd);
  if (!synced || std::filesystem::file_size(file) == 0) {
    throw Error(ErrorCode::kRuntime, "cannot write the nearest-neighbour graph " + file.string());
  }
}

}  // namespace sieve::search
