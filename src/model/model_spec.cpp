#include "model/model_spec.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string_view>

#include "model/modules/normalize_module.hpp"
#include "sieve/error.hpp"
#include "sieve/text.hpp"

namespace sieve::model {
namespace {

// TensorProto.DataType: FLOAT and FLOAT16 outputs are read (the latter converted).
bool is_float(const OnnxTensor& t) {
  return t.elem_type == 1 || t.elem_type == 10;
}

bool is_sequence_classifier(const std::string& architecture) {
  return architecture.ends_with("ForSequenceClassification");
}

bool is_causal_lm(const std::string& architecture) {
  return architecture.ends_with("ForCausalLM");
}

const char* elem_name(int elem_type) {
  switch (elem_type) {
    case 1: return "float32";
    case 10: return "float16";
    case 6: return "int32";
    case 7: return "int64";
    default: return "other";
  }
}

std::string dims_text(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::string output_list(const OnnxSummary& onnx) {
  std::string list;
  for (const auto& o : onnx.outputs) list += " " + o.name + ":" + elem_name(o.elem_type) + dims_text(o.shape);
  return list;
}

using Predicate = std::function<bool(const OnnxTensor&)>;

// The first float output that `predicate` accepts.
std::optional<std::size_t> find_output(const OnnxSummary& onnx, const Predicate& predicate) {
  for (std::size_t i = 0; i < onnx.outputs.size(); ++i) {
    if (is_float(onnx.outputs[i]) && predicate(onnx.outputs[i])) return i;
  }
  return std::nullopt;
}

Predicate named(std::string_view name, std::size_t rank) {
  return [name, rank](const OnnxTensor& t) { return t.name == name && t.shape.size() == rank; };
}

Predicate of_rank(std::size_t rank) {
  return [rank](const OnnxTensor& t) { return t.shape.size() == rank; };
}

// An embedding model's output: an already pooled sentence embedding (or
// sparse one) when the export has one, otherwise the token states.
std::size_t choose_embedding_output(const OnnxSummary& onnx, const ModelFolder& folder) {
  for (const char* name : {"sentence_embedding", "sparse_embedding"}) {
    if (auto i = find_output(onnx, named(name, 2))) return *i;
  }
  for (const char* name : {"last_hidden_state", "token_embeddings"}) {
    if (auto i = find_output(onnx, named(name, 3))) return *i;
  }
  if (auto i = find_output(onnx, of_rank(3))) return *i;
  if (auto i = find_output(onnx, of_rank(2))) return *i;
  throw Error(
      ErrorCode::kUnsupported,
      folder.onnx_file.string() +
          ": no float32 or float16 output of rank 2 (pooled) or rank 3 (token states); outputs:" + output_list(onnx));
}

// The logits output: named "logits" (what transformers and optimum call
// it), or the only float rank-2 output of a model whose configuration says
// it is a sequence classifier. Token states or a pooled embedding would
// otherwise pass for a head with hundreds of labels.
std::size_t choose_logits(const OnnxSummary& onnx, const ModelFolder& folder, bool declared_classifier) {
  for (std::size_t i = 0; i < onnx.outputs.size(); ++i) {
    const OnnxTensor& o = onnx.outputs[i];
    if (o.name == "logits") {
      if (!is_float(o) || o.shape.size() != 2) {
        throw Error(ErrorCode::kUnsupported, folder.onnx_file.string() + ": output \"logits\" is " +
                                                 elem_name(o.elem_type) + dims_text(o.shape) +
                                                 ", expected float32 or float16 [batch, labels]");
      }
      return i;
    }
  }
  std::vector<std::size_t> rank2;
  for (std::size_t i = 0; i < onnx.outputs.size(); ++i) {
    if (is_float(onnx.outputs[i]) && onnx.outputs[i].shape.size() == 2) rank2.push_back(i);
  }
  if (declared_classifier && rank2.size() == 1) return rank2[0];
  throw Error(ErrorCode::kUnsupported, folder.onnx_file.string() +
                                           ": not a cross-encoder: no float \"logits\" output of shape "
                                           "[batch, labels]; outputs:" +
                                           output_list(onnx));
}

// The kind as the files and outputs tell it, before it is checked: a ColBERT (PyLate) folder; an LLM reranker where
// llm_reranker.json describes one; a pair scorer where config.json "architectures" names a *ForSequenceClassification;
// a sparse (SPLADE) model where modules.json has SpladePooling or the graph gives "sparse_embedding"; and then by the
// outputs: a rank-2 "sentence_embedding" is a pooled embedding, a rank-3 output token states (BGE-M3's where its
// lexical weights "sparse_weights" or token vectors "colbert_vectors" come beside them), a lone rank-2 "logits"
// a pair scorer, any other rank-2 output a pooled embedding. kCrossEncoder stands for every pair scorer here.
Kind detect(const ModelFolder& folder, const OnnxSummary& onnx, bool llm) {
  if (folder.colbert) return Kind::kMultiVector;
  if (llm) return Kind::kLlmReranker;
  if (std::any_of(folder.architectures.begin(), folder.architectures.end(), is_sequence_classifier)) {
    return Kind::kCrossEncoder;
  }
  if (folder.splade_pooling || find_output(onnx, named("sparse_embedding", 2))) return Kind::kSparse;
  if (find_output(onnx, named("sentence_embedding", 2))) return Kind::kDense;
  if (find_output(onnx, of_rank(3))) {
    // BGE-M3's heads beside its token states.
    const bool heads = find_output(onnx, named("sparse_weights", 2)) || find_output(onnx, named("colbert_vectors", 3));
    return heads ? Kind::kBgeM3 : Kind::kDense;
  }
  if (find_output(onnx, named("logits", 2))) return Kind::kCrossEncoder;
  if (find_output(onnx, of_rank(2))) return Kind::kDense;
  std::string list;
  for (const auto& o : onnx.outputs) list += " " + o.name + "(rank " + std::to_string(o.shape.size()) + ")";
  throw Error(ErrorCode::kUnsupported, folder.onnx_file.string() +
                                           ": neither an embedding model (float output of rank 2 or 3) nor a "
                                           "cross-encoder (logits); outputs:" +
                                           list);
}

// Which of the folder's vector modules Sieve applies to each pooled vector, and the width they leave.
void plan_dense(const ModelFolder& f, ModelSpec& spec) {
  const auto& modules = f.vector_modules;
  std::size_t end = modules.size();
  while (end > 0 && (dynamic_cast<const NormalizeModule*>(modules[end - 1].get()) != nullptr ||
                     modules[end - 1]->spec().class_name == "Dropout")) {
    spec.trailing_normalize = spec.trailing_normalize || modules[end - 1]->spec().class_name == "Normalize";
    --end;
  }
  if (spec.pooled_by_model) {
    // The graph pools; optimum's sentence-transformers export also runs every
    // module after pooling. That is told by the width: the graph's must be
    // the last module's, and differ from the pooled one, or it is unknowable.
    spec.dimension = spec.graph_width;
    if (end == 0) return;
    const std::size_t token_width =
        f.pooling && f.pooling->embedding_dimension() ? *f.pooling->embedding_dimension() : f.hidden_size.value_or(0);
    std::size_t width = token_width * spec.pooling_modes.size();
    const std::size_t pooled = width;
    if (token_width != 0) {
      for (std::size_t i = 0; i < end; ++i) width = modules[i]->output_dimension(width);
    }
    if (token_width == 0 || width != spec.graph_width || width == pooled) {
      throw Error(ErrorCode::kUnsupported,
                  f.onnx_file.string() + ": the graph's output \"" + spec.output_name + "\" is already pooled (" +
                      std::to_string(spec.graph_width) + " wide), and whether it includes " + modules[0]->where() +
                      " cannot be told; export the model's token states (sieve-export export) so that Sieve applies "
                      "the modules itself");
    }
    return;
  }
  if (f.pooling && f.pooling->embedding_dimension() && spec.graph_width != 0 &&
      *f.pooling->embedding_dimension() != spec.graph_width) {
    throw Error(ErrorCode::kUnsupported, f.pooling->where() + ": its embedding dimension is " +
                                             std::to_string(*f.pooling->embedding_dimension()) + " but the graph's \"" +
                                             spec.output_name + "\" is " + std::to_string(spec.graph_width) + " wide");
  }
  std::size_t width = spec.graph_width * spec.pooling_modes.size();
  if (end > 0 && width == 0) {
    throw Error(ErrorCode::kUnsupported, f.onnx_file.string() + ": the width of \"" + spec.output_name +
                                             "\" is not known (dynamic, and config.json has no hidden_size), so " +
                                             modules[0]->where() + " cannot be checked");
  }
  for (std::size_t i = 0; i < end; ++i) {
    width = modules[i]->output_dimension(width);
    spec.vector_modules.push_back(modules[i].get());
  }
  spec.dimension = width;
}

// BGE-M3's extra outputs beside the token states (FlagEmbedding's heads, exported by sieve-export export --task
// bge-m3).
void plan_bge_m3(const OnnxSummary& onnx, ModelSpec& spec) {
  spec.sparse_output = find_output(onnx, named("sparse_weights", 2));
  spec.token_output = find_output(onnx, named("colbert_vectors", 3));
  if (spec.token_output) {
    const std::int64_t width = onnx.outputs[*spec.token_output].shape.back();
    spec.token_dimension = width > 0 ? static_cast<std::size_t>(width) : 0;
  }
}

// A SPLADE model: one weight per vocabulary entry.
void plan_sparse(const ModelFolder& f, ModelSpec& spec) {
  if (!spec.pooled_by_model && !f.splade_pooling) {
    throw Error(ErrorCode::kUnsupported, f.onnx_file.string() + ": the output \"" + spec.output_name +
                                             "\" is per token, and the folder has no SpladePooling module to say "
                                             "how its weights are pooled");
  }
  const auto vocab = f.splade_pooling ? f.splade_pooling->dimension() : std::nullopt;
  if (spec.graph_width == 0) spec.graph_width = vocab.value_or(0);
  if (spec.graph_width == 0 || (vocab && *vocab != spec.graph_width)) {
    throw Error(
        ErrorCode::kUnsupported,
        f.onnx_file.string() + ": the output \"" + spec.output_name + "\" is " +
            (spec.graph_width == 0 ? std::string("of unknown width") : std::to_string(spec.graph_width) + " wide") +
            (vocab ? ", but SpladePooling's configuration names " + std::to_string(*vocab) + " entries" : ""));
  }
  spec.dimension = spec.graph_width;
}

// A ColBERT model in PyLate's layout: a vector per token, projected by the folder's Dense modules.
void plan_multi_vector(const ModelFolder& f, ModelSpec& spec) {
  if (spec.pooled_by_model) {
    throw Error(ErrorCode::kUnsupported, f.onnx_file.string() + ": the output \"" + spec.output_name +
                                             "\" is one vector per input; a ColBERT model needs the token states "
                                             "(export it with sieve-export export)");
  }
  std::size_t width = spec.graph_width;
  if (width == 0) {
    throw Error(ErrorCode::kUnsupported, f.onnx_file.string() + ": the width of \"" + spec.output_name +
                                             "\" is not known (dynamic, and config.json has no hidden_size)");
  }
  for (const auto& module : f.token_modules) {
    width = module->output_dimension(width);
    spec.token_modules.push_back(module.get());
  }
  spec.dimension = width;
}

// A sequence classifier or an LLM reranker: the logits output and the labels.
void plan_pair_scorer(const ModelFolder& f, const OnnxSummary& onnx, ModelSpec& spec) {
  const auto& archs = spec.head.architectures;
  const bool declared_classifier = std::any_of(archs.begin(), archs.end(), is_sequence_classifier);
  if (spec.llm) {
    if (!archs.empty() && std::none_of(archs.begin(), archs.end(), is_causal_lm)) {
      throw Error(ErrorCode::kUnsupported, f.root.string() + ": " + kLlmRerankerFile +
                                               " describes a causal LM, but config.json architectures are " +
                                               join(archs, ", "));
    }
  } else if (!archs.empty() && !declared_classifier) {
    throw Error(ErrorCode::kUnsupported, f.root.string() + ": not a cross-encoder: config.json architectures are " +
                                             join(archs, ", ") + ", expected a *ForSequenceClassification model");
  }
  spec.output = choose_logits(onnx, f, declared_classifier || spec.llm.has_value());
  const OnnxTensor& out = onnx.outputs[spec.output];
  spec.output_name = out.name;
  spec.pooled_by_model = true;  // one row per pair
  // Labels: the configuration and a fixed output width must agree; either
  // may be missing (a dynamic width is checked on every run instead).
  const std::int64_t width = out.shape.back();
  spec.graph_width = width > 0 ? static_cast<std::size_t>(width) : 0;
  if (spec.llm) {
    // The graph gives the "no" and "yes" logits; the score is P(yes).
    if (width > 0 && width != 2) {
      throw Error(ErrorCode::kUnsupported, f.onnx_file.string() + ": output \"" + out.name + "\" has " +
                                               std::to_string(width) +
                                               " columns; an LLM reranker's graph gives 2 (the \"no\" and \"yes\" "
                                               "logits); export it with sieve-export export --task llm-reranker");
    }
    spec.dimension = 2;
    return;
  }
  const auto& labels = spec.head.num_labels;
  if (labels && width > 0 && static_cast<std::size_t>(width) != *labels) {
    throw Error(ErrorCode::kUnsupported, f.onnx_file.string() + ": output \"" + out.name + "\" has " +
                                             std::to_string(width) + " labels, config.json says " +
                                             std::to_string(*labels));
  }
  spec.dimension = labels.value_or(width > 0 ? static_cast<std::size_t>(width) : 1);
  spec.kind = spec.dimension == 1 ? Kind::kCrossEncoder : Kind::kClassifier;
}

}  // namespace

const char* kind_noun(Kind kind) noexcept {
  switch (kind) {
    case Kind::kDense: return "a dense embedding model";
    case Kind::kSparse: return "a sparse (SPLADE) model";
    case Kind::kMultiVector: return "a late-interaction (ColBERT) model";
    case Kind::kBgeM3: return "a BGE-M3 model";
    case Kind::kCrossEncoder: return "a cross-encoder";
    case Kind::kClassifier: return "a classifier";
    case Kind::kLlmReranker: return "an LLM reranker";
  }
  return "a model";
}

const char* kind_commands(Kind kind) noexcept {
  switch (kind) {
    case Kind::kDense: return "sieve embed, sieve similarity or sieve index";
    case Kind::kSparse: return "sieve embed --sparse";
    case Kind::kMultiVector: return "sieve embed --multi-vector or sieve rerank";
    case Kind::kBgeM3:
      return "sieve embed (with --sparse or --multi-vector for the other outputs it has) or sieve index";
    case Kind::kCrossEncoder:
    case Kind::kClassifier: return "sieve rerank or sieve classify";
    case Kind::kLlmReranker: return "sieve rerank";
  }
  return "sieve info";
}

bool scores_pairs(Kind kind) noexcept {
  return kind == Kind::kCrossEncoder || kind == Kind::kClassifier || kind == Kind::kLlmReranker;
}

bool loads_as_reranker(Kind kind) noexcept {
  return scores_pairs(kind) || kind == Kind::kMultiVector;
}

ModelKind ModelSpec::public_kind() const noexcept {
  switch (kind) {
    case Kind::kDense: return pooled_by_model ? ModelKind::kPooledEmbedding : ModelKind::kEmbedding;
    case Kind::kBgeM3: return ModelKind::kEmbedding;
    case Kind::kSparse: return ModelKind::kSparseEmbedding;
    case Kind::kMultiVector: return ModelKind::kLateInteraction;
    case Kind::kCrossEncoder:
    case Kind::kClassifier:
    case Kind::kLlmReranker: return ModelKind::kReranker;
  }
  return ModelKind::kEmbedding;
}

Kind detect_kind(const ModelFolder& folder, const OnnxSummary& onnx) {
  return detect(folder, onnx, std::filesystem::exists(folder.root / kLlmRerankerFile));
}

ModelKind public_kind(const ModelFolder& folder, const OnnxSummary& onnx) {
  ModelSpec spec;
  spec.kind = detect_kind(folder, onnx);
  if (spec.kind == Kind::kDense)
    spec.pooled_by_model = onnx.outputs[choose_embedding_output(onnx, folder)].shape.size() == 2;
  return spec.public_kind();
}

ModelSpec resolve_model(const ModelFolder& folder, const OnnxSummary& onnx, const SpecOptions& options) {
  ModelSpec spec;
  spec.llm = read_llm_reranker(folder.root);
  spec.kind = detect(folder, onnx, spec.llm.has_value());
  if (scores_pairs(spec.kind)) {
    spec.head = read_head_config(folder.root / "config.json");
    plan_pair_scorer(folder, onnx, spec);
  } else {
    spec.output = choose_embedding_output(onnx, folder);
    const OnnxTensor& out = onnx.outputs[spec.output];
    spec.output_name = out.name;
    spec.pooled_by_model = out.shape.size() == 2;
    const std::int64_t last = out.shape.back();
    spec.graph_width = last > 0 ? static_cast<std::size_t>(last) : folder.hidden_size.value_or(0);
    if (spec.kind == Kind::kMultiVector) {
      plan_multi_vector(folder, spec);
    } else if (spec.kind == Kind::kSparse) {
      plan_sparse(folder, spec);
    } else {
      if (out.name == "logits" && out.shape.size() == 3) {
        const bool causal = std::any_of(folder.architectures.begin(), folder.architectures.end(), is_causal_lm);
        throw Error(ErrorCode::kUnsupported,
                    folder.onnx_file.string() +
                        (causal ? ": the graph gives a causal LM's logits, and the folder has no llm_reranker.json; "
                                  "export a causal LM reranker such as Qwen3-Reranker with sieve-export export "
                                  "--task llm-reranker"
                                : ": the graph gives masked-language-model logits, not token states, and the folder "
                                  "has no SpladePooling module; export a sparse (SPLADE) model with sieve-export "
                                  "export --task sparse, or an embedding model's token states with sieve-export "
                                  "export"));
      }
      spec.pooling_modes = options.pooling
                               ? std::vector<Pooling>{*options.pooling}
                               : (folder.pooling ? folder.pooling->modes() : std::vector<Pooling>{Pooling::kMean});
      plan_dense(folder, spec);
      if (spec.kind == Kind::kBgeM3) plan_bge_m3(onnx, spec);
    }
  }
  spec.max_length = resolve_max_length(folder, spec.kind, spec.llm, options.max_length);
  return spec;
}

std::size_t resolve_max_length(const ModelFolder& folder, Kind kind, const std::optional<LlmRerankerConfig>& llm,
                               std::optional<std::size_t> requested) {
  const std::optional<std::size_t> positions = folder.max_position_embeddings;
  if (requested) {
    if (positions && *requested > *positions) {
      throw Error(ErrorCode::kInvalidArgument, "max length " + std::to_string(*requested) + " exceeds the model's " +
                                                   std::to_string(*positions) + " positions");
    }
    return *requested;
  }
  std::optional<std::size_t> card;
  if (kind == Kind::kMultiVector) {
    card = folder.colbert->document_length;
  } else if (scores_pairs(kind)) {
    if (llm) card = llm->max_length;
  } else {
    card = folder.max_seq_length;
  }
  const std::size_t length = card.value_or(folder.model_max_length.value_or(positions.value_or(512)));
  return positions ? std::min(length, *positions) : length;
}

std::string describe_outputs(const OnnxSummary& onnx) {
  return output_list(onnx);
}

std::string describe_kind(const ModelFolder& folder, Kind kind) {
  if (kind == Kind::kLlmReranker) return std::string("an LLM reranker (") + kLlmRerankerFile + ")";
  if (scores_pairs(kind)) {
    for (const auto& arch : folder.architectures) {
      if (is_sequence_classifier(arch)) return "a cross-encoder or classifier (config.json: " + arch + ")";
    }
    return "a cross-encoder (its graph gives logits)";
  }
  return kind_noun(kind);
}

}  // namespace sieve::model

namespace sieve {

const char* to_string(ModelType type) noexcept {
  switch (type) {
    case ModelType::kDense: return "dense";
    case ModelType::kSparse: return "sparse";
    case ModelType::kMultiVector: return "multi-vector";
    case ModelType::kBgeM3: return "bge-m3";
    case ModelType::kCrossEncoder: return "cross-encoder";
    case ModelType::kClassifier: return "classifier";
    case ModelType::kLlmReranker: return "llm-reranker";
  }
  return "dense";
}

}  // namespace sieve
