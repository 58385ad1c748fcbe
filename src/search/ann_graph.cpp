#include "search/ann_graph.hpp"

#include <fcntl.h>
#include <hnswlib/hnswlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <thread>

#include "sieve/error.hpp"

namespace sieve::search {
namespace {

// While a thread searches a graph of codes, the first vector each distance is asked for is that search's query (in
// VectorCodec::query_form()): hnswlib's searches always pass it first. Elsewhere (building) both are codes.
thread_local const VectorCodec* searching = nullptr;

float code_distance(const void* a, const void* b, const void* param) {
  const auto& codec = *static_cast<const VectorCodec*>(param);
  const auto* code = static_cast<const std::uint8_t*>(b);
  if (searching == &codec) return codec.distance_to_query(static_cast<const float*>(a), code);
  return codec.distance(static_cast<const std::uint8_t*>(a), code);
}

// int8 and binary codes as an hnswlib space.
class CodeSpace final : public hnswlib::SpaceInterface<float> {
 public:
  explicit CodeSpace(const VectorCodec& codec) : codec_(codec) {}
  size_t get_data_size() override { return codec_.code_bytes(); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return &code_distance; }
  void* get_dist_func_param() override { return const_cast<VectorCodec*>(&codec_); }

 private:
  const VectorCodec& codec_;
};

}  // namespace

struct AnnGraph::Impl {
  explicit Impl(VectorCodec c) : codec(std::move(c)) {
    if (codec.kind() == VectorCodes::kFloat32) {
      space = std::make_unique<hnswlib::InnerProductSpace>(codec.coded_dimension());
    } else {
      space = std::make_unique<CodeSpace>(codec);
    }
  }
  VectorCodec codec;
  std::unique_ptr<hnswlib::SpaceInterface<float>> space;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> graph;
  // hnswlib's ef is one setting for the whole graph: searches with different
  // ef must not interleave.
  mutable std::mutex search_mutex;

  [[nodiscard]] const std::uint8_t* code_of(std::int64_t label) const {
    const auto found = graph->label_lookup_.find(static_cast<hnswlib::labeltype>(label));
    if (found == graph->label_lookup_.end() || graph->isMarkedDeleted(found->second)) return nullptr;
    return reinterpret_cast<const std::uint8_t*>(graph->getDataByInternalId(found->second));
  }
};

AnnGraph::AnnGraph(VectorCodec codec, std::size_t capacity, std::size_t m, std::size_t ef_construction)
    : impl_(std::make_unique<Impl>(std::move(codec))) {
  impl_->graph = std::make_unique<hnswlib::HierarchicalNSW<float>>(
      impl_->space.get(), std::max<std::size_t>(capacity, 16), m, ef_construction, 100);
}

AnnGraph::AnnGraph(const std::filesystem::path& file, VectorCodec codec)
    : impl_(std::make_unique<Impl>(std::move(codec))) {
  try {
    impl_->graph = std::make_unique<hnswlib::HierarchicalNSW<float>>(impl_->space.get(), file.string());
  } catch (const std::exception& e) {
    throw Error(ErrorCode::kParse, "nearest-neighbour graph " + file.string() + ": " + e.what());
  }
  const auto& graph = *impl_->graph;
  const std::size_t stored = graph.size_data_per_element_ - graph.size_links_level0_ - sizeof(hnswlib::labeltype);
  if (graph.size_data_per_element_ < graph.size_links_level0_ + sizeof(hnswlib::labeltype) ||
      stored != impl_->codec.code_bytes()) {
    throw Error(ErrorCode::kParse, "nearest-neighbour graph " + file.string() + " holds vectors of " +
                                       std::to_string(stored) + " bytes; the index keeps " +
                                       to_string(impl_->codec.kind()) + " vectors of " +
                                       std::to_string(impl_->codec.code_bytes()) + " bytes");
  }
}

AnnGraph::~AnnGraph() = default;

const VectorCodec& AnnGraph::codec() const {
  return impl_->codec;
}

void AnnGraph::add(std::span<const std::int64_t> labels, std::span<const float> vectors, std::size_t threads) {
  auto& graph = *impl_->graph;
  const VectorCodec& codec = impl_->codec;
  const std::size_t dimension = codec.dimension();
  const std::size_t needed = graph.cur_element_count + labels.size();
  if (needed > graph.max_elements_) graph.resizeIndex(std::max(needed, graph.max_elements_ * 3 / 2));
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    std::vector<std::uint8_t> code(codec.code_bytes());
    for (std::size_t i = next++; i < labels.size(); i = next++) {
      const float* vector = vectors.data() + i * dimension;
      const void* point = vector;
      if (codec.kind() != VectorCodes::kFloat32 || codec.prefixed()) {
        codec.encode({vector, dimension}, code.data());
        point = code.data();
      }
      graph.addPoint(point, static_cast<hnswlib::labeltype>(labels[i]));
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
  const VectorCodec& codec = impl_->codec;
  const std::vector<float> form =
      codec.kind() == VectorCodes::kFloat32 && !codec.prefixed() ? std::vector<float>() : codec.query_form(query);
  std::priority_queue<std::pair<float, hnswlib::labeltype>> queue;
  {
    const std::scoped_lock lock(impl_->search_mutex);
    struct Searching {
      explicit Searching(const VectorCodec* codec) { searching = codec; }
      Searching(const Searching&) = delete;
      Searching& operator=(const Searching&) = delete;
      ~Searching() { searching = nullptr; }
    } const guard(&codec);
    graph.setEf(std::max(ef, n));
    queue = graph.searchKnn(form.empty() ? query.data() : form.data(), n);
  }
  found.resize(queue.size());
  // The queue pops the farthest first.
  for (std::size_t i = queue.size(); i-- > 0; queue.pop()) {
    found[i] = {static_cast<std::int64_t>(queue.top().second), 1.0 - static_cast<double>(queue.top().first)};
  }
  return found;
}

bool AnnGraph::contains(std::int64_t label) const {
  return impl_->code_of(label) != nullptr;
}

bool AnnGraph::holds(std::int64_t label, std::span<const float> vector) const {
  const std::uint8_t* code = impl_->code_of(label);
  if (code == nullptr || vector.size() != impl_->codec.dimension()) return false;
  std::vector<std::uint8_t> expected(impl_->codec.code_bytes());
  impl_->codec.encode(vector, expected.data());
  return std::memcmp(code, expected.data(), expected.size()) == 0;
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
