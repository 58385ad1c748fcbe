// The `sieve._sieve` extension module: the C++ API as Python sees it. The
// Python package (bindings/python/sieve) re-exports it and defines the
// exception classes; errors of the library are raised as those.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sieve/embedder.hpp"
#include "sieve/error.hpp"
#include "sieve/logging.hpp"
#include "sieve/quantize.hpp"
#include "sieve/registry.hpp"
#include "sieve/reranker.hpp"
#include "sieve/search.hpp"
#include "sieve/tokenizer.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

// The Python class an ErrorCode is raised as (sieve/errors.py).
const char* exception_name(sieve::ErrorCode code) {
  switch (code) {
    case sieve::ErrorCode::kInvalidArgument: return "InvalidArgument";
    case sieve::ErrorCode::kInvalidInput: return "InvalidInput";
    case sieve::ErrorCode::kNotFound: return "ModelNotFound";
    case sieve::ErrorCode::kParse: return "ParseError";
    case sieve::ErrorCode::kUnsupported: return "Unsupported";
    case sieve::ErrorCode::kRuntime: return "RuntimeFailure";
    case sieve::ErrorCode::kOverloaded: return "Overloaded";
    case sieve::ErrorCode::kTimeout: return "Timeout";
    case sieve::ErrorCode::kCancelled: return "Cancelled";
  }
  return "SieveError";
}

void raise_as_python(const sieve::Error& e) {
  nb::gil_scoped_acquire gil;
  const nb::object errors = nb::module_::import_("sieve.errors");
  const nb::object type = errors.attr(exception_name(e.code()));
  const nb::object index = e.input_index() ? nb::cast(*e.input_index()) : nb::none();
  const nb::object error = type(e.what(), "index"_a = index);
  PyErr_SetObject(type.ptr(), error.ptr());
}

// Texts as the library takes them: a list of str (each UTF-8 by Python's
// own encoding), kept alive by `storage` while the views are used.
std::vector<std::string_view> views_of(const std::vector<std::string>& storage) {
  return {storage.begin(), storage.end()};
}

// Row-major float32 data handed to NumPy without a copy: the array owns the
// vector through a capsule.
nb::ndarray<nb::numpy, float> to_numpy(std::vector<float>&& data, std::vector<std::size_t> shape) {
  auto* owned = new std::vector<float>(std::move(data));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<float>*>(p); });
  return nb::ndarray<nb::numpy, float>(owned->data(), shape.size(), shape.data(), owner);
}

// Quantized vectors (sentence-transformers' quantize_embeddings) handed to
// NumPy without a copy: int8 for int8 and binary, uint8 for uint8 and
// ubinary, float16 for float16.
nb::object quantized_to_numpy(sieve::QuantizedEmbeddings&& q) {
  auto* owned = new std::vector<std::uint8_t>(std::move(q.data));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<std::uint8_t>*>(p); });
  const bool half = q.precision == sieve::Precision::kFloat16;
  const bool is_signed = q.precision == sieve::Precision::kInt8 || q.precision == sieve::Precision::kBinary;
  const std::size_t shape[2] = {q.rows, q.values_per_row()};
  const nb::dlpack::dtype dtype{static_cast<std::uint8_t>(half        ? nb::dlpack::dtype_code::Float
                                                          : is_signed ? nb::dlpack::dtype_code::Int
                                                                      : nb::dlpack::dtype_code::UInt),
                                static_cast<std::uint8_t>(half ? 16 : 8), 1};
  return nb::cast(nb::ndarray<nb::numpy>(owned->data(), 2, shape, owner, nullptr, dtype));
}

struct PyEncoding {
  sieve::Encoding encoding;
  std::vector<std::string> tokens;
};

std::vector<PyEncoding> encode_texts(const sieve::Tokenizer& tokenizer, const std::vector<std::string>& texts,
                                     bool add_special_tokens) {
  std::vector<sieve::Encoding> encodings;
  {
    nb::gil_scoped_release release;
    const std::vector<std::string_view> views = views_of(texts);
    encodings = tokenizer.encode_batch(views, add_special_tokens, 0);
  }
  std::vector<PyEncoding> out;
  out.reserve(encodings.size());
  for (std::size_t i = 0; i < encodings.size(); ++i) {
    PyEncoding e{std::move(encodings[i]), {}};
    e.tokens.reserve(e.encoding.size());
    for (std::size_t t = 0; t < e.encoding.size(); ++t) {
      e.tokens.push_back(tokenizer.token_string(e.encoding, t, texts[i]));
    }
    out.push_back(std::move(e));
  }
  return out;
}

template <typename T>
std::vector<int> as_ints(const std::vector<T>& values) {
  return {values.begin(), values.end()};
}

// A copy of `values` as a 1-D NumPy array (token ids, sparse indices).
template <typename T>
nb::ndarray<nb::numpy, T> vector_to_numpy(std::vector<T>&& values) {
  auto* owned = new std::vector<T>(std::move(values));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  const std::size_t shape[1] = {owned->size()};
  return nb::ndarray<nb::numpy, T>(owned->data(), 1, shape, owner);
}

sieve::RuntimeOptions runtime_options(int threads, const std::vector<std::string>& providers) {
  sieve::check_thread_count(threads, "threads");
  sieve::RuntimeOptions runtime;
  runtime.intra_op_threads = threads;
  for (const std::string& provider : providers) runtime.providers.push_back(sieve::parse_provider_spec(provider));
  return runtime;
}

const char* output_name(sieve::OutputKind kind) {
  switch (kind) {
    case sieve::OutputKind::kDense: return "dense";
    case sieve::OutputKind::kSparse: return "sparse";
    case sieve::OutputKind::kMultiVector: return "multi-vector";
  }
  return "dense";
}

nb::dict registry_entry(const sieve::RegistryEntry& e) {
  nb::dict d;
  d["name"] = e.name;
  d["kind"] = std::string(sieve::to_string(e.kind));
  d["type"] = std::string(sieve::to_string(e.type));
  d["dimension"] = e.dimension;
  d["max_length"] = e.max_length;
  d["providers"] = e.providers;
  d["loaded"] = e.loaded;
  d["estimated_bytes"] = e.estimated_bytes;
  if (!e.error.empty()) d["error"] = e.error;
  return d;
}

// A search index with the models it embeds with. Calls on one index take
// turns (the index's own snapshot isolation is between processes).
struct PyIndex {
  sieve::SearchIndex index;
  std::mutex mutex;
};

nb::object json_loads(const std::string& text) {
  return nb::module_::import_("json").attr("loads")(text);
}

}  // namespace

NB_MODULE(_sieve, m) {
  m.doc() = "Sieve's native library: text embeddings and tokenizers on ONNX Runtime.";
  // A library keeps quiet unless asked: warnings and errors only.
  sieve::set_log_level("warn");
  m.def(
      "set_log_level", [](const std::string& level) { sieve::set_log_level(level); }, "level"_a,
      "How much the library logs to standard error: trace, debug, info, warn, error or off.");
  // sentence-transformers' quantize_embeddings of float32 rows (the vectors of one call), for the package's
  // encode when it truncates the vectors itself.
  m.def(
      "_quantize",
      [](const nb::ndarray<const float, nb::ndim<2>, nb::c_contig, nb::device::cpu>& vectors,
         const std::string& precision) {
        sieve::Embeddings e;
        e.rows = vectors.shape(0);
        e.dimension = vectors.shape(1);
        e.data.assign(vectors.data(), vectors.data() + e.rows * e.dimension);
        const sieve::Precision wanted = sieve::parse_precision(precision);
        if (wanted == sieve::Precision::kFloat32) return nb::cast(to_numpy(std::move(e.data), {e.rows, e.dimension}));
        sieve::QuantizedEmbeddings q;
        {
          nb::gil_scoped_release release;
          q = sieve::quantize(e, wanted);
        }
        return quantized_to_numpy(std::move(q));
      },
      "vectors"_a, "precision"_a);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const sieve::Error& e) {
      raise_as_python(e);
    }
  });

  nb::class_<PyEncoding>(m, "Encoding", "One tokenized text, as Hugging Face tokenizers' Encoding.")
      .def_prop_ro("ids", [](const PyEncoding& e) { return as_ints(e.encoding.ids); })
      .def_prop_ro("type_ids", [](const PyEncoding& e) { return as_ints(e.encoding.type_ids); })
      .def_prop_ro("attention_mask", [](const PyEncoding& e) { return as_ints(e.encoding.attention_mask); })
      .def_prop_ro("special_tokens_mask", [](const PyEncoding& e) { return as_ints(e.encoding.special_tokens_mask); })
      .def_prop_ro("offsets", [](const PyEncoding& e) { return e.encoding.offsets; })
      .def_prop_ro("tokens", [](const PyEncoding& e) { return e.tokens; })
      .def("__len__", [](const PyEncoding& e) { return e.encoding.size(); })
      .def("__repr__",
           [](const PyEncoding& e) { return "Encoding(num_tokens=" + std::to_string(e.encoding.size()) + ")"; });

  nb::class_<sieve::Tokenizer>(m, "Tokenizer", "A tokenizer read from a Hugging Face tokenizer.json.")
      .def_static(
          "from_file",
          [](const std::string& path) {
            sieve::Tokenizer t = sieve::Tokenizer::from_file(path);
            // Python counts characters, as Hugging Face's offsets do there.
            t.set_offset_unit(sieve::OffsetUnit::kChar);
            return t;
          },
          "path"_a, "Reads a tokenizer.json file.")
      .def(
          "encode",
          [](const sieve::Tokenizer& t, const std::string& text, bool add_special_tokens) {
            return std::move(encode_texts(t, {text}, add_special_tokens).front());
          },
          "text"_a, "add_special_tokens"_a = true, "Encodes one text.")
      .def("encode_batch", &encode_texts, "texts"_a, "add_special_tokens"_a = true,
           "Encodes many texts (on every core, the GIL released), in input order.")
      .def("token_to_id", &sieve::Tokenizer::token_to_id, "token"_a)
      .def(
          "id_to_token", [](const sieve::Tokenizer& t, std::uint32_t id) { return std::string(t.id_to_token(id)); },
          "id"_a)
      .def("get_vocab_size", &sieve::Tokenizer::vocab_size);

  nb::class_<sieve::Embedder>(m, "Embedder")
      .def(
          "__init__",
          [](sieve::Embedder* self, const std::string& folder, int threads, const std::vector<std::string>& providers,
             std::optional<bool> normalize, std::optional<std::string> pooling, std::optional<std::size_t> max_length,
             std::optional<std::size_t> dimensions, std::optional<std::string> prompt,
             std::optional<std::string> prompt_name, std::size_t batch_size) {
            sieve::EmbedderOptions options;
            options.runtime = runtime_options(threads, providers);
            options.normalize = normalize;
            if (pooling) options.pooling = sieve::parse_pooling(*pooling);
            options.max_length = max_length;
            options.dimensions = dimensions;
            options.prompt = std::move(prompt);
            options.prompt_name = std::move(prompt_name);
            options.batch_size = batch_size;
            nb::gil_scoped_release release;
            new (self) sieve::Embedder(sieve::Embedder::load(folder, options));
          },
          "folder"_a, nb::kw_only(), "threads"_a = 0, "providers"_a = std::vector<std::string>{},
          "normalize"_a = nb::none(), "pooling"_a = nb::none(), "max_length"_a = nb::none(),
          "dimensions"_a = nb::none(), "prompt"_a = nb::none(), "prompt_name"_a = nb::none(), "batch_size"_a = 32)
      .def(
          "_embed",
          [](const sieve::Embedder& e, const std::vector<std::string>& texts, std::size_t batch_size,
             std::optional<bool> normalize, std::optional<std::size_t> dimensions,
             std::optional<std::string> prompt_name, std::optional<std::string> prompt, const std::string& precision,
             const nb::object& progress) {
            const sieve::Precision wanted = sieve::parse_precision(precision);
            sieve::EmbedOptions options;
            options.batch_size = batch_size;
            options.normalize = normalize;
            options.dimensions = dimensions;
            options.prompt_name = std::move(prompt_name);
            options.prompt = std::move(prompt);
            // Between batches: Ctrl-C (a pending signal) or an exception of
            // the progress callback stops the call and is raised as it is.
            bool stopped = false;
            options.progress = [&](std::size_t done, std::size_t total) {
              nb::gil_scoped_acquire gil;
              if (PyErr_CheckSignals() != 0) {
                stopped = true;
                return false;
              }
              if (!progress.is_none()) {
                try {
                  progress(done, total);
                } catch (nb::python_error& error) {
                  error.restore();
                  stopped = true;
                  return false;
                }
              }
              return true;
            };
            sieve::Embeddings out;
            try {
              nb::gil_scoped_release release;
              out = e.embed(views_of(texts), options);
            } catch (const sieve::Error&) {
              if (stopped) throw nb::python_error();
              throw;
            }
            if (wanted != sieve::Precision::kFloat32) {
              sieve::QuantizedEmbeddings q;
              {
                nb::gil_scoped_release release;
                q = sieve::quantize(out, wanted);
              }
              return quantized_to_numpy(std::move(q));
            }
            return nb::cast(to_numpy(std::move(out.data), {out.rows, out.dimension}));
          },
          "texts"_a, "batch_size"_a, "normalize"_a.none(), "dimensions"_a.none(), "prompt_name"_a.none(),
          "prompt"_a.none(), "precision"_a, "progress"_a.none())
      .def(
          "_embed_late_chunks",
          [](const sieve::Embedder& e, const std::vector<std::string>& chunks, const std::string& separator,
             std::optional<std::size_t> overlap, std::size_t batch_size, std::optional<bool> normalize,
             std::optional<std::size_t> dimensions, std::optional<std::string> prompt_name,
             std::optional<std::string> prompt) {
            sieve::LateChunkOptions options;
            options.separator = separator;
            options.overlap = overlap;
            options.embed.batch_size = batch_size;
            options.embed.normalize = normalize;
            options.embed.dimensions = dimensions;
            options.embed.prompt_name = std::move(prompt_name);
            options.embed.prompt = std::move(prompt);
            sieve::Embeddings out;
            {
              nb::gil_scoped_release release;
              out = e.embed_late_chunks(views_of(chunks), options);
            }
            return to_numpy(std::move(out.data), {out.rows, out.dimension});
          },
          "chunks"_a, "separator"_a, "overlap"_a.none(), "batch_size"_a, "normalize"_a.none(), "dimensions"_a.none(),
          "prompt_name"_a.none(), "prompt"_a.none())
      .def(
          "_embed_sparse",
          [](const sieve::Embedder& e, const std::vector<std::string>& texts, std::size_t top_k, float min_weight) {
            std::vector<sieve::SparseVector> vectors;
            {
              nb::gil_scoped_release release;
              vectors = e.embed_sparse(views_of(texts), sieve::SparseOptions{top_k, min_weight});
            }
            nb::list out;
            for (sieve::SparseVector& v : vectors) {
              std::vector<std::int64_t> ids(v.ids.begin(), v.ids.end());
              out.append(nb::make_tuple(vector_to_numpy(std::move(ids)), vector_to_numpy(std::move(v.weights))));
            }
            return out;
          },
          "texts"_a, "top_k"_a, "min_weight"_a)
      .def(
          "_embed_tokens",
          [](const sieve::Embedder& e, const std::vector<std::string>& texts, bool is_query) {
            std::vector<sieve::TokenVectors> vectors;
            {
              nb::gil_scoped_release release;
              vectors =
                  e.embed_tokens(views_of(texts), is_query ? sieve::TextRole::kQuery : sieve::TextRole::kDocument);
            }
            nb::list out;
            for (sieve::TokenVectors& v : vectors) {
              out.append(nb::make_tuple(to_numpy(std::move(v.data), {v.rows, v.dimension}),
                                        vector_to_numpy(std::move(v.ids))));
            }
            return out;
          },
          "texts"_a, "is_query"_a)
      .def_prop_ro("output", [](const sieve::Embedder& e) { return std::string(output_name(e.info().output_kind)); })
      .def_prop_ro("has_sparse_head", [](const sieve::Embedder& e) { return e.info().bge_m3.lexical; })
      .def_prop_ro("has_token_head", [](const sieve::Embedder& e) { return e.info().bge_m3.token_vectors; })
      .def_prop_ro("prompts", [](const sieve::Embedder& e) { return e.info().dense.prompts; })
      .def_prop_ro("prompt", [](const sieve::Embedder& e) { return e.info().dense.prompt; })
      .def_prop_ro("folder", [](const sieve::Embedder& e) { return e.info().folder; })
      .def_prop_ro("tokenizer", &sieve::Embedder::tokenizer, nb::rv_policy::reference_internal)
      .def_prop_ro("dimension", [](const sieve::Embedder& e) { return e.info().dimension; })
      .def_prop_ro("max_length", [](const sieve::Embedder& e) { return e.info().max_length; })
      .def_prop_ro("normalize", [](const sieve::Embedder& e) { return e.info().normalize; })
      .def_prop_ro("pooling", [](const sieve::Embedder& e) { return sieve::pooling_name(e.info()); })
      .def_prop_ro("providers", [](const sieve::Embedder& e) { return e.info().providers; });

  nb::class_<sieve::Reranker>(m, "Reranker")
      .def(
          "__init__",
          [](sieve::Reranker* self, const std::string& folder, int threads, const std::vector<std::string>& providers,
             std::optional<std::size_t> max_length, const std::string& activation, std::size_t batch_size) {
            sieve::RerankerOptions options;
            options.runtime = runtime_options(threads, providers);
            options.max_length = max_length;
            options.activation = sieve::parse_score_activation(activation);
            options.batch_size = batch_size;
            nb::gil_scoped_release release;
            new (self) sieve::Reranker(sieve::Reranker::load(folder, options));
          },
          "folder"_a, nb::kw_only(), "threads"_a = 0, "providers"_a = std::vector<std::string>{},
          "max_length"_a = nb::none(), "activation"_a = "auto", "batch_size"_a = 32)
      .def(
          "_predict",
          [](const sieve::Reranker& r, const std::vector<std::pair<std::string, std::string>>& pairs,
             std::size_t batch_size) {
            std::vector<float> scores;
            {
              nb::gil_scoped_release release;
              std::vector<sieve::TextPair> views;
              views.reserve(pairs.size());
              for (const auto& [first, second] : pairs) views.push_back({first, second});
              scores = r.score_pairs(views, std::max<std::size_t>(1, batch_size));
            }
            const std::size_t n = scores.size();
            return to_numpy(std::move(scores), {n});
          },
          "pairs"_a, "batch_size"_a)
      .def(
          "_classify_pairs",
          [](const sieve::Reranker& r, const std::vector<std::pair<std::string, std::string>>& pairs, bool raw) {
            std::vector<float> scores;
            {
              nb::gil_scoped_release release;
              std::vector<sieve::TextPair> views;
              views.reserve(pairs.size());
              for (const auto& [first, second] : pairs) views.push_back({first, second});
              scores = r.classify(views, raw);
            }
            const std::size_t n = pairs.size();
            return to_numpy(std::move(scores), {n, r.num_labels()});
          },
          "pairs"_a, "raw"_a)
      .def(
          "_rank",
          [](const sieve::Reranker& r, const std::string& query, const std::vector<std::string>& documents,
             std::size_t top_k) {
            std::vector<sieve::RerankResult> ranked;
            {
              nb::gil_scoped_release release;
              ranked = r.rerank(query, views_of(documents), top_k);
            }
            std::vector<std::pair<std::size_t, float>> out;
            out.reserve(ranked.size());
            for (const sieve::RerankResult& result : ranked) out.emplace_back(result.index, result.score);
            return out;
          },
          "query"_a, "documents"_a, "top_k"_a)
      .def_prop_ro("max_length", [](const sieve::Reranker& r) { return r.info().max_length; })
      .def_prop_ro("num_labels", &sieve::Reranker::num_labels)
      // A classifier of several labels (not an LLM reranker or a ColBERT model): predict gives a row per pair.
      .def_prop_ro("_label_rows",
                   [](const sieve::Reranker& r) {
                     return r.num_labels() > 1 && !r.is_llm_reranker() && !r.is_late_interaction();
                   })
      .def_prop_ro("labels", &sieve::Reranker::labels)
      .def_prop_ro("activation", [](const sieve::Reranker& r) { return std::string(sieve::to_string(r.activation())); })
      .def_prop_ro("providers", [](const sieve::Reranker& r) { return r.info().providers; });

  nb::class_<sieve::ModelRegistry>(m, "Registry")
      .def(
          "__init__",
          [](sieve::ModelRegistry* self, const std::filesystem::path& root, std::size_t memory_budget, int threads,
             const std::vector<std::string>& providers, bool shared_thread_pool) {
            sieve::RegistryOptions options;
            options.memory_budget = memory_budget;
            options.embedder.runtime = runtime_options(threads, providers);
            options.reranker.runtime = options.embedder.runtime;
            options.shared_thread_pool = shared_thread_pool;
            new (self) sieve::ModelRegistry(root, options);
          },
          "root"_a, nb::kw_only(), "memory_budget"_a = 0, "threads"_a = 0, "providers"_a = std::vector<std::string>{},
          "shared_thread_pool"_a = false)
      .def(
          "_embedder",
          [](sieve::ModelRegistry& r, const std::string& name) {
            nb::gil_scoped_release release;
            return std::const_pointer_cast<sieve::Embedder>(r.embedder(name));
          },
          "name"_a)
      .def(
          "_reranker",
          [](sieve::ModelRegistry& r, const std::string& name) {
            nb::gil_scoped_release release;
            return std::const_pointer_cast<sieve::Reranker>(r.reranker(name));
          },
          "name"_a)
      .def(
          "load",
          [](sieve::ModelRegistry& r, const std::string& name) {
            nb::gil_scoped_release release;
            r.load(name);
          },
          "name"_a, "Loads a model (of any kind) now rather than on first use.")
      .def(
          "unload", [](sieve::ModelRegistry& r, const std::string& name) { return r.unload(name); }, "name"_a,
          "Lets go of a model; False when it was not loaded. Objects still holding it keep working.")
      .def(
          "list",
          [](const sieve::ModelRegistry& r) {
            nb::list out;
            for (const sieve::RegistryEntry& e : r.list()) out.append(registry_entry(e));
            return out;
          },
          "Every model folder under the root, by name, as dicts (nothing is loaded).")
      .def(
          "describe",
          [](const sieve::ModelRegistry& r, const std::string& name) { return registry_entry(r.describe(name)); },
          "name"_a, "One model, described without loading it.")
      .def_prop_ro("root", &sieve::ModelRegistry::root)
      .def_prop_ro("resident_bytes", &sieve::ModelRegistry::resident_bytes);

  nb::class_<PyIndex>(m, "Index")
      .def(
          "__init__",
          [](PyIndex* self, const std::filesystem::path& folder, const sieve::Embedder* model,
             const sieve::Embedder* sparse_model, std::size_t chunk_tokens, std::size_t overlap_tokens) {
            nb::gil_scoped_release release;
            if (model == nullptr) {
              new (self) PyIndex{sieve::SearchIndex::open(folder), {}};
              return;
            }
            sieve::IndexCreateOptions options;
            options.chunking.chunk_tokens = chunk_tokens;
            options.chunking.overlap_tokens = overlap_tokens;
            new (self) PyIndex{sieve::SearchIndex::create(folder, *model, options, sparse_model), {}};
          },
          "folder"_a, "model"_a.none(), "sparse_model"_a.none(), "chunk_tokens"_a, "overlap_tokens"_a)
      .def(
          "_add",
          [](PyIndex& self, const std::vector<std::filesystem::path>& paths, const sieve::Embedder& model,
             const sieve::Embedder* sparse_model, std::uint64_t max_file_bytes, bool follow_links,
             std::vector<std::string> include, std::vector<std::string> exclude, bool keep_missing) {
            sieve::IngestOptions options;
            options.max_file_bytes = max_file_bytes;
            options.follow_links = follow_links;
            options.include = std::move(include);
            options.exclude = std::move(exclude);
            options.keep_missing = keep_missing;
            std::string report;
            {
              nb::gil_scoped_release release;
              const std::lock_guard lock(self.mutex);
              report = sieve::ingest_report_json(self.index.add(paths, model, options, sparse_model));
            }
            return json_loads(report);
          },
          "paths"_a, "model"_a, "sparse_model"_a.none(), "max_file_bytes"_a = sieve::kDefaultMaxFileBytes,
          "follow_links"_a = false, "include"_a = std::vector<std::string>{}, "exclude"_a = std::vector<std::string>{},
          "keep_missing"_a = false)
      .def(
          "_remove",
          [](PyIndex& self, const std::vector<std::string>& ids) {
            nb::gil_scoped_release release;
            const std::lock_guard lock(self.mutex);
            return self.index.remove(ids);
          },
          "ids"_a)
      .def(
          "_search",
          [](PyIndex& self, const std::string& query, std::size_t k, const std::string& mode,
             const std::vector<std::pair<std::string, std::string>>& filters, const sieve::Embedder* model,
             const sieve::Reranker* reranker, const sieve::Embedder* sparse_model, std::size_t rerank_candidates,
             bool exact, std::size_t per_document, const std::string& fusion, const std::vector<std::string>& formats,
             const std::vector<std::string>& folders, std::size_t offset) {
            sieve::SearchOptions options;
            options.k = k;
            options.mode = sieve::parse_search_mode(mode);
            options.filters = filters;
            options.rerank_candidates = std::max(rerank_candidates, k);
            options.exact = exact;
            options.per_document = per_document;
            options.fusion = sieve::parse_search_fusion(fusion);
            options.formats = formats;
            options.folders = folders;
            options.offset = offset;
            std::string result;
            {
              nb::gil_scoped_release release;
              const std::lock_guard lock(self.mutex);
              result = sieve::search_result_json(self.index.search(query, options, model, reranker, sparse_model),
                                                 query, options.mode);
            }
            return json_loads(result);
          },
          "query"_a, "k"_a, "mode"_a, "filters"_a, "model"_a.none(), "reranker"_a.none(), "sparse_model"_a.none(),
          "rerank_candidates"_a, "exact"_a, "per_document"_a = sieve::kDefaultHitsPerDocument, "fusion"_a = "weighted",
          "formats"_a = std::vector<std::string>{}, "folders"_a = std::vector<std::string>{}, "offset"_a = 0)
      .def("_lists",
           [](const PyIndex& self, const std::string& mode) {
             sieve::SearchOptions options;
             options.mode = sieve::parse_search_mode(mode);
             std::vector<std::string> names;
             for (const sieve::SearchMode list : self.index.lists(options)) names.emplace_back(sieve::to_string(list));
             return names;
           })
      .def("_stats",
           [](PyIndex& self) {
             std::string stats;
             {
               nb::gil_scoped_release release;
               const std::lock_guard lock(self.mutex);
               stats = sieve::index_stats_json(self.index.stats());
             }
             return json_loads(stats);
           })
      .def("_check", [](PyIndex& self) {
        std::string report;
        {
          nb::gil_scoped_release release;
          const std::lock_guard lock(self.mutex);
          report = sieve::check_report_json(self.index.check());
        }
        return json_loads(report);
      });
}
