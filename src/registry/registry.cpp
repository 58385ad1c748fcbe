#include "sieve/registry.hpp"

#include "logging.hpp"

#include <algorithm>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <optional>

#include "model/model_folder.hpp"
#include "model/model_spec.hpp"
#include "sieve/error.hpp"

namespace sieve {

const char* to_string(ModelKind kind) noexcept {
  switch (kind) {
    case ModelKind::kEmbedding: return "embedding";
    case ModelKind::kPooledEmbedding: return "pooled embedding";
    case ModelKind::kReranker: return "reranker";
    case ModelKind::kSparseEmbedding: return "sparse embedding";
    case ModelKind::kLateInteraction: return "late interaction";
  }
  return "embedding";
}

namespace {

namespace fs = std::filesystem;

// One loaded model; the handles given out alias into it.
struct LoadedModel {
  std::optional<Embedder> embedder;
  std::optional<Reranker> reranker;
};
using ModelFuture = std::shared_future<std::shared_ptr<LoadedModel>>;

// What a folder says about itself, read without loading it: its spec is decided as the loaders decide it, with the
// options they are given.
struct Description {
  model::ModelFolder folder;
  model::OnnxSummary onnx;
  model::ModelSpec spec;
  ModelKind kind = ModelKind::kEmbedding;
  std::size_t bytes = 0;
};

Description describe_folder(const fs::path& path, const RegistryOptions& options = {}) {
  Description d;
  d.folder = model::read_model_folder(path);
  d.onnx = model::read_onnx_summary(d.folder.onnx_file);
  // The options that decide the spec are the loader's of the kind; which loader is a matter of the files alone.
  const bool reranker = model::loads_as_reranker(model::detect_kind(d.folder, d.onnx));
  const model::SpecOptions spec_options =
      reranker ? model::SpecOptions{options.reranker.max_length, std::nullopt}
               : model::SpecOptions{options.embedder.max_length, options.embedder.pooling};
  d.spec = model::resolve_model(d.folder, d.onnx, spec_options);
  d.kind = d.spec.public_kind();
  d.bytes = model::estimate_bytes(d.folder, d.onnx);
  return d;
}

bool inside(const fs::path& path, const fs::path& root) {
  const auto [r, p] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  (void)p;
  return r == root.end();
}

std::string quoted(std::string_view name) {
  return "model \"" + std::string(name) + "\"";
}

bool is_model_folder(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "tokenizer.json", ec) &&
         (fs::is_regular_file(dir / "model.onnx", ec) || fs::is_regular_file(dir / "onnx/model.onnx", ec));
}

// Hugging Face's cache keeps the repository org/name as models--org--name/, each revision a folder
// snapshots/COMMIT/ (its files links into ../../blobs/) and refs/main naming the main branch's commit.
constexpr std::string_view kHubCachePrefix = "models--";

// "org/name" for a cache folder "models--org--name"; empty for any other folder.
std::string hub_cache_name(std::string_view leaf) {
  if (!leaf.starts_with(kHubCachePrefix) || leaf.size() == kHubCachePrefix.size()) return {};
  std::string name(leaf.substr(kHubCachePrefix.size()));
  for (std::size_t at = name.find("--"); at != std::string::npos; at = name.find("--", at + 1))
    name.replace(at, 2, "/");
  return name;
}

// The snapshot of a cache folder to serve: the one refs/main names, else the most recently modified one that is a
// model folder.
std::optional<fs::path> hub_cache_snapshot(const fs::path& repo) {
  std::error_code ec;
  std::ifstream ref(repo / "refs" / "main");
  std::string commit;
  if (ref >> commit && commit.find('/') == std::string::npos && commit.find("..") == std::string::npos) {
    if (const fs::path named = repo / "snapshots" / commit; is_model_folder(named)) return named;
  }
  std::optional<fs::path> newest;
  fs::file_time_type newest_time;
  for (fs::directory_iterator it(repo / "snapshots", ec), end; !ec && it != end; it.increment(ec)) {
    if (!is_model_folder(it->path())) continue;
    const auto when = fs::last_write_time(it->path(), ec);
    if (!newest || when > newest_time) {
      newest = it->path();
      newest_time = when;
    }
  }
  return newest;
}

// The snapshot that serves `name` from a repository in Hugging Face's cache layout under `root`: its last two
// parts as org/name (root/.../models--org--name), else its last part alone (root/.../models--name).
std::optional<fs::path> hub_cache_folder(const fs::path& root, const fs::path& name) {
  for (const auto& [parent, repo] :
       {std::pair{name.parent_path().parent_path(), name.parent_path().filename() / name.filename()},
        std::pair{name.parent_path(), name.filename()}}) {
    if (repo.empty() || repo.begin()->empty()) continue;
    std::string leaf(kHubCachePrefix);
    for (const auto& part : repo) leaf += (leaf.size() > kHubCachePrefix.size() ? "--" : "") + part.string();
    if (auto snapshot = hub_cache_snapshot(root / parent / leaf)) return snapshot;
  }
  return std::nullopt;
}

// Model folders below `dir`, by name; a model folder is not searched further.
// The depth bound also stops symbolic-link loops.
void find_models(const fs::path& dir, const std::string& prefix, int depth, std::vector<std::string>& names) {
  std::error_code ec;
  std::vector<fs::path> children;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) children.push_back(it->path());
  std::sort(children.begin(), children.end());
  for (const auto& child : children) {
    const std::string leaf = child.filename().string();
    if (leaf.empty() || leaf.front() == '.' || !fs::is_directory(child, ec)) continue;
    std::string name = prefix;
    if (!name.empty()) name += '/';
    if (const std::string cached = hub_cache_name(leaf); !cached.empty()) {
      if (hub_cache_snapshot(child)) names.push_back(name + cached);
      continue;
    }
    name += leaf;
    if (is_model_folder(child)) {
      names.push_back(name);
    } else if (depth < 4) {
      find_models(child, name, depth + 1, names);
    }
  }
}

}  // namespace

ModelKind detect_model_kind(const fs::path& folder) {
  const model::ModelFolder f = model::read_model_folder(folder);
  return model::public_kind(f, model::read_onnx_summary(f.onnx_file));
}

struct ModelRegistry::Impl {
  struct Slot {
    ModelFuture future;
    std::uint64_t generation = 0;  // tells a slot from a later one of the same name
    std::uint64_t last_used = 0;
    std::size_t bytes = 0;  // known once the loader has read the folder
    bool ready = false;
  };

  fs::path root;
  fs::path canonical_root;
  RegistryOptions options;
  mutable std::mutex mutex;
  std::map<std::string, Slot, std::less<>> slots;
  std::uint64_t clock = 0;
  std::uint64_t generations = 0;
  std::size_t loads = 0;

  [[nodiscard]] EmbedderOptions embedder_options() const {
    EmbedderOptions o = options.embedder;
    o.runtime.shared_thread_pool = o.runtime.shared_thread_pool || options.shared_thread_pool;
    return o;
  }
  [[nodiscard]] RerankerOptions reranker_options() const {
    RerankerOptions o = options.reranker;
    o.runtime.shared_thread_pool = o.runtime.shared_thread_pool || options.shared_thread_pool;
    return o;
  }

  // Chooses least recently used idle models to drop until the estimates fit
  // the budget; `keep` is never chosen. Called with the mutex held; the
  // victims are returned so that their sessions are released after it is.
  std::vector<ModelFuture> make_room(const std::string& keep) {
    std::vector<ModelFuture> victims;
    if (options.memory_budget == 0) return victims;
    std::size_t resident = 0;
    for (const auto& [name, slot] : slots) resident += slot.bytes;
    while (resident > options.memory_budget) {
      auto victim = slots.end();
      for (auto it = slots.begin(); it != slots.end(); ++it) {
        if (it->first == keep || !it->second.ready) continue;
        // Only the registry's own reference left: nobody is using it.
        if (it->second.future.get().use_count() > 1) continue;
        if (victim == slots.end() || it->second.last_used < victim->second.last_used) victim = it;
      }
      if (victim == slots.end()) {
        logger().warn("model registry: {} bytes estimated in use, over the budget of {}; every other model is in use",
                      resident, options.memory_budget);
        break;
      }
      logger().info("model registry: evicting \"{}\" ({} bytes estimated)", victim->first, victim->second.bytes);
      resident -= victim->second.bytes;
      victims.push_back(std::move(victim->second.future));
      slots.erase(victim);
    }
    return victims;
  }

  std::map<std::string, Slot, std::less<>>::iterator find(const std::string& name, std::uint64_t generation) {
    const auto it = slots.find(name);
    return it != slots.end() && it->second.generation == generation ? it : slots.end();
  }

  std::shared_ptr<LoadedModel> acquire(std::string_view name, const fs::path& folder) {
    const std::string key(name);
    std::unique_lock lock(mutex);
    if (const auto it = slots.find(key); it != slots.end()) {
      it->second.last_used = ++clock;
      const ModelFuture future = it->second.future;
      lock.unlock();
      return future.get();  // waits for a load in progress; rethrows its error
    }
    // This thread loads; the others that ask meanwhile wait on the future.
    // The mutex is not held while loading, so other models stay available.
    std::promise<std::shared_ptr<LoadedModel>> promise;
    Slot& slot = slots[key];
    slot.future = promise.get_future().share();
    slot.generation = ++generations;
    slot.last_used = ++clock;
    const std::uint64_t generation = slot.generation;
    lock.unlock();
    try {
      const Description d = describe_folder(folder, options);
      if (options.memory_budget != 0 && d.bytes > options.memory_budget) {
        throw Error(ErrorCode::kInvalidArgument, quoted(name) + " needs about " + std::to_string(d.bytes) +
                                                     " bytes, more than the whole memory budget of " +
                                                     std::to_string(options.memory_budget));
      }
      std::vector<ModelFuture> victims;
      lock.lock();
      if (const auto it = find(key, generation); it != slots.end()) it->second.bytes = d.bytes;
      victims = make_room(key);
      lock.unlock();
      victims.clear();  // evicted sessions are released here, outside the lock

      auto model = std::make_shared<LoadedModel>();
      if (loads_as_reranker(d.kind)) {
        model->reranker.emplace(Reranker::load(folder, reranker_options()));
      } else {
        model->embedder.emplace(Embedder::load(folder, embedder_options()));
      }
      lock.lock();
      ++loads;
      // Unloaded while loading: the caller still gets its model.
      if (const auto it = find(key, generation); it != slots.end()) it->second.ready = true;
      promise.set_value(model);
      lock.unlock();
      return model;
    } catch (...) {
      if (!lock.owns_lock()) lock.lock();
      // A failed load is forgotten, so that the next request tries again.
      if (const auto it = find(key, generation); it != slots.end()) slots.erase(it);
      promise.set_exception(std::current_exception());
      throw;
    }
  }

  [[nodiscard]] std::vector<std::string> requested_providers(ModelKind kind) const {
    const RuntimeOptions& runtime = loads_as_reranker(kind) ? options.reranker.runtime : options.embedder.runtime;
    std::vector<std::string> names;
    for (const auto& p : runtime.providers) {
      if (std::find(names.begin(), names.end(), p.name) == names.end()) names.push_back(p.name);
    }
    if (std::find(names.begin(), names.end(), "cpu") == names.end()) names.emplace_back("cpu");
    return names;
  }

  RegistryEntry describe(std::string_view name, const fs::path& folder) const {
    RegistryEntry entry;
    entry.name = std::string(name);
    entry.repository = model::pulled_repository(folder);
    const Description d = describe_folder(folder, options);
    entry.kind = d.kind;
    entry.type = d.spec.kind;
    entry.estimated_bytes = d.bytes;

    // As the loaders decide them, for a model not loaded yet.
    entry.max_length = d.spec.max_length;
    entry.dimension = d.spec.dimension;
    if (d.spec.kind == model::Kind::kDense || d.spec.kind == model::Kind::kBgeM3) {
      entry.dimension = options.embedder.dimensions.value_or(entry.dimension);
    }
    entry.providers = requested_providers(d.kind);

    // A loaded model knows better: the session's real providers.
    std::shared_ptr<LoadedModel> model;
    {
      const std::lock_guard lock(mutex);
      if (const auto it = slots.find(name); it != slots.end() && it->second.ready) model = it->second.future.get();
    }
    if (model) {
      entry.loaded = true;
      const ModelInfo& info = model->embedder ? model->embedder->info() : model->reranker->info();
      if (model->embedder) entry.dimension = info.dimension;
      entry.max_length = info.max_length;
      entry.providers = info.providers;
    }
    return entry;
  }
};

ModelRegistry::ModelRegistry(fs::path root, RegistryOptions options) : impl_(std::make_unique<Impl>()) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    throw Error(ErrorCode::kNotFound, root.string() + ": models root not found (or not a folder)");
  }
  impl_->canonical_root = fs::canonical(root);
  impl_->root = std::move(root);
  impl_->options = std::move(options);
}

ModelRegistry::~ModelRegistry() = default;

const fs::path& ModelRegistry::root() const noexcept {
  return impl_->root;
}

fs::path ModelRegistry::resolve(std::string_view name) const {
  if (name.empty()) throw Error(ErrorCode::kInvalidArgument, "model name is empty");
  if (name.find('\0') != std::string_view::npos) {
    throw Error(ErrorCode::kInvalidArgument, "model name contains a NUL character");
  }
  if (name.front() == '/' || fs::path(name).is_absolute()) {
    throw Error(ErrorCode::kInvalidArgument,
                quoted(name) + " is an absolute path; names are relative to the models root " + impl_->root.string());
  }
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t slash = std::min(name.find('/', start), name.size());
    const std::string_view part = name.substr(start, slash - start);
    if (part.empty()) {
      throw Error(ErrorCode::kInvalidArgument, quoted(name) + " has an empty part (a doubled or trailing \"/\")");
    }
    if (part == "..") {
      throw Error(ErrorCode::kInvalidArgument, quoted(name) + " contains \"..\"; names may not leave the models root");
    }
    if (part == ".") throw Error(ErrorCode::kInvalidArgument, quoted(name) + " contains a \".\" part");
    start = slash + 1;
  }
  fs::path folder = impl_->root / fs::path(name);
  std::error_code ec;
  if (!fs::exists(folder, ec)) {
    if (auto snapshot = hub_cache_folder(impl_->root, name)) folder = *snapshot;
  }
  if (!fs::exists(folder, ec)) {
    throw Error(ErrorCode::kNotFound, quoted(name) + " not found: no folder " + folder.string());
  }
  fs::path real = fs::canonical(folder, ec);
  if (ec) throw Error(ErrorCode::kNotFound, quoted(name) + ": cannot resolve " + folder.string() + ": " + ec.message());
  // A symbolic link may lead out of the root only to a model folder (a link to a model kept elsewhere, as
  // Hugging Face's cache links its files): names can never reach anything else through one.
  if (!inside(real, impl_->canonical_root) && !is_model_folder(real)) {
    throw Error(ErrorCode::kInvalidArgument, quoted(name) + " resolves to " + real.string() +
                                                 " through a symbolic link, outside the models root " +
                                                 impl_->canonical_root.string() + ", and that is not a model folder");
  }
  if (!fs::is_directory(real, ec))
    throw Error(ErrorCode::kNotFound, quoted(name) + ": " + folder.string() + " is not a folder");
  return real;
}

std::shared_ptr<const Embedder> ModelRegistry::embedder(std::string_view name) {
  auto model = impl_->acquire(name, resolve(name));
  if (!model->embedder) {
    throw Error(ErrorCode::kInvalidArgument, quoted(name) + " is a reranker, not an embedding model");
  }
  const Embedder* e = &*model->embedder;
  return {std::move(model), e};
}

std::shared_ptr<const Reranker> ModelRegistry::reranker(std::string_view name) {
  auto model = impl_->acquire(name, resolve(name));
  if (!model->reranker) {
    throw Error(ErrorCode::kInvalidArgument, quoted(name) + " is an embedding model, not a reranker");
  }
  const Reranker* r = &*model->reranker;
  return {std::move(model), r};
}

void ModelRegistry::load(std::string_view name) {
  (void)impl_->acquire(name, resolve(name));
}

bool ModelRegistry::unload(std::string_view name) {
  ModelFuture dropped;  // released after the lock
  {
    const std::lock_guard lock(impl_->mutex);
    const auto it = impl_->slots.find(name);
    if (it == impl_->slots.end()) return false;
    dropped = std::move(it->second.future);
    impl_->slots.erase(it);
  }
  return true;
}

RegistryEntry ModelRegistry::describe(std::string_view name) const {
  return impl_->describe(name, resolve(name));
}

std::vector<RegistryEntry> ModelRegistry::list() const {
  std::vector<std::string> names;
  find_models(impl_->root, "", 0, names);
  std::vector<RegistryEntry> entries;
  for (const auto& name : names) {
    try {
      entries.push_back(describe(name));
    } catch (const Error& e) {
      RegistryEntry entry;
      entry.name = name;
      entry.error = e.what();
      entries.push_back(std::move(entry));
    }
  }
  return entries;
}

std::size_t ModelRegistry::resident_bytes() const {
  const std::lock_guard lock(impl_->mutex);
  std::size_t total = 0;
  for (const auto& [name, slot] : impl_->slots) total += slot.bytes;
  return total;
}

std::size_t ModelRegistry::load_count() const {
  const std::lock_guard lock(impl_->mutex);
  return impl_->loads;
}

}  // namespace sieve
