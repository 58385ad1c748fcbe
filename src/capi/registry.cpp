#include "sieve/registry.hpp"
#include "capi/handles.hpp"
#include "capi/options.hpp"
#include "capi/status.hpp"
#include "sieve/error.hpp"

using sieve::capi::guarded;
using sieve::capi::require;

extern "C" {

void sieve_registry_options_init(sieve_registry_options* options, size_t struct_size) {
  if (options == nullptr || struct_size < sizeof(std::size_t)) return;
  const sieve_registry_options defaults{};
  sieve::capi::init_versioned(options, struct_size, &defaults, sizeof defaults);
}

sieve_status* sieve_registry_open(const char* root, const sieve_registry_options* options, sieve_registry** out) {
  static constexpr const char* kFunction = "sieve_registry_open";
  return guarded(kFunction, [&] {
    require(out != nullptr, kFunction, "out is NULL");
    *out = nullptr;
    require(root != nullptr, kFunction, "root is NULL");
    sieve_registry_options opts;
    sieve_registry_options_init(&opts, sizeof opts);
    if (options != nullptr) {
      sieve::capi::read_versioned(options, options->struct_size, &opts, sizeof opts, kFunction,
                                  "sieve_registry_options");
    }
    const sieve_model_options model_options = sieve::capi::read_model_options(opts.model_options, kFunction);
    sieve::RegistryOptions registry_options;
    registry_options.memory_budget = static_cast<std::size_t>(opts.memory_budget);
    registry_options.embedder = sieve::capi::embedder_options(model_options);
    registry_options.reranker = sieve::capi::reranker_options(model_options);
    registry_options.shared_thread_pool = opts.shared_thread_pool != 0;
    if (!std::filesystem::is_directory(root)) {
      throw sieve::Error(sieve::ErrorCode::kNotFound,
                         std::string(kFunction) + ": models root " + root + " is not a folder");
    }
    auto registry = std::make_unique<sieve_registry>();
    registry->registry = std::make_unique<sieve::ModelRegistry>(root, std::move(registry_options));
    *out = registry.release();
  });
}

void sieve_registry_destroy(sieve_registry* registry) {
  delete registry;
}

sieve_status* sieve_registry_get(sieve_registry* registry, const char* name, sieve_model** out) {
  static constexpr const char* kFunction = "sieve_registry_get";
  return guarded(kFunction, [&] {
    require(out != nullptr, kFunction, "out is NULL");
    *out = nullptr;
    require(registry != nullptr, kFunction, "registry is NULL");
    require(name != nullptr, kFunction, "name is NULL");
    sieve::ModelRegistry& models = *registry->registry;
    std::filesystem::path folder;
    try {
      folder = models.resolve(name);
    } catch (const sieve::Error& e) {
      // A name that is not a model under the root (empty, "..", absolute) is
      // not found, as the server answers 404 for it.
      if (e.code() != sieve::ErrorCode::kInvalidArgument) throw;
      throw sieve::Error(sieve::ErrorCode::kNotFound, e.what());
    }
    const auto kind = sieve::detect_model_kind(folder);
    std::unique_ptr<sieve_model> model = sieve::loads_as_reranker(kind)
                                             ? sieve::capi::make_model(nullptr, models.reranker(name))
                                             : sieve::capi::make_model(models.embedder(name), nullptr);
    *out = model.release();
  });
}

sieve_status* sieve_registry_list(const sieve_registry* registry, sieve_model_list** out) {
  static constexpr const char* kFunction = "sieve_registry_list";
  return guarded(kFunction, [&] {
    require(out != nullptr, kFunction, "out is NULL");
    *out = nullptr;
    require(registry != nullptr, kFunction, "registry is NULL");
    auto list = std::make_unique<sieve_model_list>();
    list->entries = registry->registry->list();
    for (const auto& entry : list->entries) list->providers.push_back(sieve::capi::join_comma(entry.providers));
    *out = list.release();
  });
}

size_t sieve_model_list_size(const sieve_model_list* list) {
  return list ? list->entries.size() : 0;
}

sieve_status* sieve_model_list_get(const sieve_model_list* list, size_t index, sieve_registry_entry* out) {
  static constexpr const char* kFunction = "sieve_model_list_get";
  return guarded(kFunction, [&] {
    require(list != nullptr, kFunction, "list is NULL");
    require(out != nullptr, kFunction, "out is NULL");
    if (index >= list->entries.size()) {
      throw sieve::capi::CapiError(SIEVE_INVALID_ARGUMENT, std::string(kFunction) + ": index " + std::to_string(index) +
                                                               " is past the list's " +
                                                               std::to_string(list->entries.size()) + " entries");
    }
    const sieve::RegistryEntry& entry = list->entries[index];
    sieve_registry_entry result{};
    result.struct_size = sizeof result;
    result.name = entry.name.c_str();
    result.kind = sieve::capi::to_kind(entry.kind);
    result.dimension = entry.dimension;
    result.max_length = entry.max_length;
    result.loaded = entry.loaded ? 1 : 0;
    result.providers = list->providers[index].c_str();
    result.error = entry.error.c_str();
    sieve::capi::write_versioned(out, &result, sizeof result, kFunction, "sieve_registry_entry");
  });
}

void sieve_model_list_destroy(sieve_model_list* list) {
  delete list;
}

}  // extern "C"
