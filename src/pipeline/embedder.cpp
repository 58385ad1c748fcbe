#include <algorithm>
#include <chrono>
#include <limits>
#include <mutex>

#include "logging.hpp"
#include "model/model_folder.hpp"
#include "model/model_spec.hpp"
#include "model/modules/normalize_module.hpp"
#include "model/token_ids.hpp"
#include "pipeline/heads/dense_head.hpp"
#include "pipeline/heads/multi_vector_head.hpp"
#include "pipeline/heads/sparse_head.hpp"
#include "pipeline/late_chunking.hpp"
#include "pipeline/model_inputs.hpp"
#include "pipeline/pooling.hpp"
#include "pipeline/runner.hpp"
#include "runtime/session.hpp"
#include "sieve/embedder.hpp"
#include "sieve/error.hpp"
#include "sieve/text.hpp"

namespace sieve {
namespace {

using pipeline::shape_text;
using pipeline::type_name;

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The prompt put before every input, chosen as sentence-transformers'
// encode() chooses it: an explicit prompt, else the named one, else the
// folder's default.
std::string choose_prompt(const EmbedderOptions& options, const model::ModelFolder& f) {
  if (options.prompt) {
    if (options.prompt_name) {
      logger().warn("both a prompt and a prompt name were given; using the prompt, as sentence-transformers does");
    }
    return *options.prompt;
  }
  const auto find = [&](const std::string& name) -> const std::string* {
    for (const auto& [key, text] : f.prompts) {
      if (key == name) return &text;
    }
    return nullptr;
  };
  if (options.prompt_name) {
    if (const std::string* text = find(*options.prompt_name)) return *text;
    const std::string known =
        join(f.prompts, ", ", [](const auto& prompt) -> const std::string& { return prompt.first; });
    throw Error(ErrorCode::kInvalidArgument,
                "unknown prompt name \"" + *options.prompt_name + "\"; " +
                    (known.empty() ? "the model folder defines no prompts (config_sentence_transformers.json)"
                                   : "the model's prompts are: " + known));
  }
  if (f.default_prompt_name) {
    if (const std::string* text = find(*f.default_prompt_name)) return *text;
  }
  return {};
}

}  // namespace

struct Embedder::Impl {
  model::ModelFolder folder;
  Tokenizer tokenizer;
  pipeline::Runner runner;  // the session and its inputs
  ModelInfo info;
  // What the model is: its kind, the output it reads (spec.output), the modules applied to each pooled vector before
  // it leaves run_batch() (spec.vector_modules: all of modules.json's vector modules but a trailing Normalize, which
  // is info.normalize, applied after Matryoshka truncation as the option is), a ColBERT model's token modules and
  // BGE-M3's heads.
  model::ModelSpec spec;
  std::size_t batch_size = 32;
  std::optional<std::size_t> dimensions;
  InvalidUtf8 invalid_utf8 = InvalidUtf8::kError;
  // Truncating from the left is rare; its tokenizer is loaded on first use. So is late chunking's, which does not
  // truncate.
  mutable std::once_flag left_once;
  mutable std::unique_ptr<Tokenizer> left_tokenizer;
  mutable std::once_flag whole_once;
  mutable std::unique_ptr<Tokenizer> whole_tokenizer;

  Impl(model::ModelFolder f, model::ModelSpec p, Tokenizer t, runtime::Session s)
      : folder(std::move(f)), tokenizer(std::move(t)), runner(std::move(s), folder.onnx_file), spec(std::move(p)) {}

  // A ColBERT model: queries are tokenized to their own length; the marker
  // tokens, the expansion token and the documents' skip list as ids.
  std::unique_ptr<Tokenizer> query_tokenizer;
  std::optional<std::uint32_t> query_prefix_id;
  std::optional<std::uint32_t> document_prefix_id;
  std::uint32_t expansion_id = 0;
  std::vector<std::uint32_t> skiplist;  // sorted
  // BGE-M3: the special tokens its lexical weights skip.
  std::vector<std::uint32_t> unused_tokens;  // sorted

  void plan_sparse(const EmbedderOptions& options);
  void plan_multi_vector(const EmbedderOptions& options);
  void plan_heads();
  [[nodiscard]] std::vector<Encoding> encode_late(std::span<const std::string_view> texts, TextRole role,
                                                  std::size_t threads) const;

  // The folder's tokenizer loaded once more, on first use, with its own truncation (none: unset) and no padding.
  const Tokenizer& lazy_tokenizer(std::once_flag& once, std::unique_ptr<Tokenizer>& slot,
                                  std::optional<TruncationParams> truncation) const {
    std::call_once(once, [&] {
      auto t = std::make_unique<Tokenizer>(Tokenizer::from_file(folder.tokenizer_file));
      t->set_padding(std::nullopt);
      t->set_truncation(truncation);
      t->set_invalid_utf8(invalid_utf8);
      slot = std::move(t);
    });
    return *slot;
  }

  [[nodiscard]] const Tokenizer& tokenizer_for(Direction direction) const {
    if (direction == Direction::kRight) return tokenizer;
    return lazy_tokenizer(left_once, left_tokenizer,
                          TruncationParams{info.max_length, TruncationStrategy::kLongestFirst, 0, Direction::kLeft});
  }

  // The dimensions a call keeps: its own, else the embedder's, else all of the model's.
  [[nodiscard]] std::size_t kept_dimensions(std::optional<std::size_t> asked) const {
    const std::size_t keep = asked.value_or(dimensions.value_or(info.model_dimension));
    if (keep == 0 || keep > info.model_dimension) {
      throw Error(ErrorCode::kInvalidArgument, "dimensions " + std::to_string(keep) +
                                                   " is not between 1 and the model's " +
                                                   std::to_string(info.model_dimension));
    }
    return keep;
  }

  [[nodiscard]] const Tokenizer& untruncated_tokenizer() const {
    return lazy_tokenizer(whole_once, whole_tokenizer, std::nullopt);
  }

  // The prompt a call asks for (`prompt` wins over `prompt_name`; neither: the embedder's) and the tokens of it that
  // pooling leaves out.
  [[nodiscard]] std::pair<std::string, std::size_t> prompt_for(const std::optional<std::string>& prompt,
                                                               const std::optional<std::string>& prompt_name) const {
    if (!prompt && !prompt_name) return {info.dense.prompt, info.dense.prompt_length};
    EmbedderOptions chosen;
    chosen.prompt = prompt;
    chosen.prompt_name = prompt_name;
    std::string text = choose_prompt(chosen, folder);
    if (!text.empty() && !folder.pooling_include_prompt && info.pooled_by_model) {
      throw Error(ErrorCode::kUnsupported, "the model pools inside the ONNX graph, so prompt \"" +
                                               (prompt ? *prompt : *prompt_name) + "\" cannot be left out of pooling");
    }
    const std::size_t skip = prompt_pooling_skip(text);
    return {std::move(text), skip};
  }

  // Tokens of a prompt that pooling leaves out: sentence-transformers counts
  // the prompt's tokens with the special tokens the tokenizer adds, less a
  // trailing special token (the [SEP] that the text's encoding has after the
  // text, not after the prompt).
  [[nodiscard]] std::size_t prompt_pooling_skip(const std::string& prompt) const {
    if (prompt.empty() || folder.pooling_include_prompt) return 0;
    const Encoding e = tokenizer.encode(prompt, true);
    std::size_t n = e.size();
    if (n > 0 && e.special_tokens_mask[n - 1] != 0) --n;
    return n;
  }
};

// A SPLADE model: one weight per vocabulary entry, never normalized,
// truncated or pooled any other way.
void Embedder::Impl::plan_sparse(const EmbedderOptions& options) {
  const auto& f = folder;
  const std::string what = f.root.string() + " is a sparse (SPLADE) model";
  if (options.pooling) throw Error(ErrorCode::kInvalidArgument, what + ": its pooling cannot be chosen");
  if (options.dimensions) throw Error(ErrorCode::kInvalidArgument, what + ": its vectors cannot be truncated");
  if (options.normalize.value_or(false)) {
    throw Error(ErrorCode::kInvalidArgument, what + ": its vectors are not normalized");
  }
  info.output_kind = OutputKind::kSparse;
  info.normalize = false;
  if (f.splade_pooling) info.sparse_pooling = f.splade_pooling->pooling();
}

namespace {

constexpr std::uint32_t kNoToken = std::numeric_limits<std::uint32_t>::max();

// A special token of the tokenizer's configuration (tokenizer_config.json,
// else special_tokens_map.json): a string or {"content": ...}.
std::optional<std::string> configured_token(const std::filesystem::path& root, const char* key) {
  for (const char* name : {"tokenizer_config.json", "special_tokens_map.json"}) {
    const auto doc = model::read_json_file(root / name);
    if (!doc) continue;
    const auto it = doc->find(key);
    if (it == doc->end()) continue;
    if (it->is_string()) return it->get<std::string>();
    if (it->is_object() && it->contains("content") && (*it)["content"].is_string()) {
      return (*it)["content"].get<std::string>();
    }
  }
  return std::nullopt;
}

}  // namespace

// A ColBERT model in PyLate's layout: a vector per token, projected by the
// folder's Dense modules and normalized, tokenized as PyLate does.
void Embedder::Impl::plan_multi_vector(const EmbedderOptions& options) {
  const auto& f = folder;
  const auto& c = *f.colbert;
  const std::string what = f.root.string() + " is a late-interaction (ColBERT) model";
  if (options.pooling) throw Error(ErrorCode::kInvalidArgument, what + ": its token vectors are not pooled");
  if (options.dimensions) throw Error(ErrorCode::kInvalidArgument, what + ": its vectors cannot be truncated");
  if (options.normalize && !*options.normalize) {
    throw Error(ErrorCode::kInvalidArgument, what + ": its token vectors are always normalized");
  }
  info.output_kind = OutputKind::kMultiVector;
  info.normalize = true;

  const auto id_of = [&](const std::string& token, const char* role) -> std::optional<std::uint32_t> {
    if (token.empty()) return std::nullopt;
    if (auto id = tokenizer.token_to_id(token)) return id;
    throw Error(ErrorCode::kUnsupported, f.root.string() + ": the " + role + " prefix \"" + token +
                                             "\" is not a token of the tokenizer (tokenizer.json)");
  };
  query_prefix_id = id_of(c.query_prefix, "query");
  document_prefix_id = id_of(c.document_prefix, "document");
  // PyLate expands queries with the mask token, else the end-of-sequence
  // token, else the padding token.
  std::optional<std::uint32_t> expansion;
  for (const char* key : {"mask_token", "eos_token", "pad_token"}) {
    if (const auto token = configured_token(f.root, key)) expansion = tokenizer.token_to_id(*token);
    if (expansion) break;
  }
  if (!expansion && c.query_expansion) {
    throw Error(ErrorCode::kUnsupported, f.root.string() +
                                             ": query expansion needs a mask, end-of-sequence or padding token, "
                                             "and the tokenizer's configuration names none");
  }
  expansion_id = expansion.value_or(0);
  // As PyLate's convert_tokens_to_ids: a word the vocabulary lacks maps to
  // the unknown token, which documents then lose too.
  const auto unknown = configured_token(f.root, "unk_token");
  const std::uint32_t unknown_id = unknown ? tokenizer.token_to_id(*unknown).value_or(kNoToken) : kNoToken;
  for (const std::string& word : c.skiplist_words) {
    const std::uint32_t id = tokenizer.token_to_id(word).value_or(unknown_id);
    if (id != kNoToken) skiplist.push_back(id);
  }
  std::sort(skiplist.begin(), skiplist.end());
  skiplist.erase(std::unique(skiplist.begin(), skiplist.end()), skiplist.end());

  auto& mv = info.multi_vector;
  mv.query_prefix = c.query_prefix;
  mv.document_prefix = c.document_prefix;
  mv.query_length = c.query_length;
  mv.document_length = c.document_length;
  mv.query_expansion = c.query_expansion;
  mv.attend_to_expansion_tokens = c.attend_to_expansion_tokens;
  mv.skiplist_tokens = skiplist.size();
}

// BGE-M3's extra outputs beside the token states (FlagEmbedding's heads,
// exported by sieve-export export --task bge-m3).
void Embedder::Impl::plan_heads() {
  if (spec.kind != model::Kind::kBgeM3) return;
  info.bge_m3.lexical = spec.sparse_output.has_value();
  info.bge_m3.token_vectors = spec.token_output.has_value();
  info.bge_m3.token_dimension = spec.token_dimension;
  // FlagEmbedding leaves these out of the lexical weights.
  for (const char* key : {"cls_token", "eos_token", "pad_token", "unk_token"}) {
    if (const auto token = configured_token(folder.root, key)) {
      if (const auto id = tokenizer.token_to_id(*token)) unused_tokens.push_back(*id);
    }
  }
  std::sort(unused_tokens.begin(), unused_tokens.end());
}

// PyLate's tokenization: the text cut to its length less the marker, the
// marker put after the first token, and queries expanded to their length.
std::vector<Encoding> Embedder::Impl::encode_late(std::span<const std::string_view> texts, TextRole role,
                                                  std::size_t threads) const {
  const bool query = role == TextRole::kQuery;
  const Tokenizer& t = query ? *query_tokenizer : tokenizer;
  // Queries and documents are cut to their lengths, as PyLate cuts them.
  std::vector<Encoding> encodings = t.encode_each(texts, true, threads);
  const auto prefix = query ? query_prefix_id : document_prefix_id;
  const auto& mv = info.multi_vector;
  for (Encoding& e : encodings) {
    e.overflowing.clear();
    e.overflowing.shrink_to_fit();
    if (e.attention_mask.size() != e.size()) e.attention_mask.assign(e.size(), 1);
    if (prefix) {
      const auto at = static_cast<std::ptrdiff_t>(std::min<std::size_t>(1, e.size()));
      e.ids.insert(e.ids.begin() + at, *prefix);
      e.type_ids.insert(e.type_ids.begin() + at, 0);
      e.attention_mask.insert(e.attention_mask.begin() + at, 1);
      e.special_tokens_mask.insert(e.special_tokens_mask.begin() + at, 1);
      e.offsets.insert(e.offsets.begin() + at, Offsets{0, 0});
    }
    if (query && mv.query_expansion && e.size() < mv.query_length) {
      const std::size_t n = mv.query_length - e.size();
      e.ids.insert(e.ids.end(), n, expansion_id);
      e.type_ids.insert(e.type_ids.end(), n, 0);
      e.attention_mask.insert(e.attention_mask.end(), n, mv.attend_to_expansion_tokens ? 1 : 0);
      e.special_tokens_mask.insert(e.special_tokens_mask.end(), n, 1);
      e.offsets.insert(e.offsets.end(), n, Offsets{0, 0});
    }
  }
  return encodings;
}

Embedder::Embedder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Embedder::Embedder(Embedder&&) noexcept = default;
Embedder& Embedder::operator=(Embedder&&) noexcept = default;
Embedder::~Embedder() = default;

Embedder Embedder::load(const std::filesystem::path& folder_path, const EmbedderOptions& options) {
  if (options.batch_size == 0) throw Error(ErrorCode::kInvalidArgument, "batch size must be at least 1");
  auto folder = model::read_model_folder(folder_path);
  auto tokenizer = Tokenizer::from_file(folder.tokenizer_file);
  const auto summary = model::read_onnx_summary(folder.onnx_file);
  if (const model::Kind kind = model::detect_kind(folder, summary); model::scores_pairs(kind)) {
    throw Error(ErrorCode::kUnsupported, folder.root.string() + ": is " + model::describe_kind(folder, kind) +
                                             ", not an embedding model: it scores texts and gives no vectors; use " +
                                             model::kind_commands(kind) + " (a Reranker in the libraries)");
  }
  model::check_token_ids(folder, summary, tokenizer);
  model::ModelSpec spec = model::resolve_model(folder, summary, {options.max_length, options.pooling});
  runtime::Session session(folder.onnx_file, options.runtime, pipeline::graph_names(summary));
  auto impl = std::make_unique<Impl>(std::move(folder), std::move(spec), std::move(tokenizer), std::move(session));
  const runtime::Session& live = impl->runner.session();
  const auto& f = impl->folder;
  const auto& onnx = f.onnx_file;
  const model::ModelSpec& s = impl->spec;

  const auto& out = pipeline::output_at(live, s.output, s.output_name, onnx);

  ModelInfo& info = impl->info;
  info.folder = f.root;
  info.onnx_file = onnx;
  info.type = s.kind;
  info.output = out.name;
  info.pooled_by_model = s.pooled_by_model;
  if (!s.pooling_modes.empty()) info.dense.pooling_modes = s.pooling_modes;
  info.dense.pooling = info.dense.pooling_modes.front();
  for (const auto& module : f.modules) info.modules.push_back(module->describe());
  info.model_dimension = s.dimension;
  if (s.kind == model::Kind::kMultiVector) {
    impl->plan_multi_vector(options);
  } else if (s.kind == model::Kind::kSparse) {
    impl->plan_sparse(options);
  } else {
    // Without sentence-transformers files there is no Normalize module to
    // follow; normalized vectors are what search users almost always want.
    info.normalize = options.normalize.value_or(f.has_sentence_transformers_files ? s.trailing_normalize : true);
  }
  info.dimension = info.model_dimension;
  if (options.dimensions) {
    const std::size_t n = *options.dimensions;
    if (n == 0) throw Error(ErrorCode::kInvalidArgument, "dimensions must be at least 1");
    if (info.model_dimension != 0 && n > info.model_dimension) {
      throw Error(ErrorCode::kInvalidArgument, "dimensions " + std::to_string(n) + " exceeds the model's " +
                                                   std::to_string(info.model_dimension) + " dimensions");
    }
    info.dimension = n;
  }
  info.dense.prompts = f.prompts;
  info.dense.default_prompt_name = f.default_prompt_name;
  info.dense.similarity_fn_name = f.similarity_fn_name.value_or("cosine");
  info.dense.prompt = choose_prompt(options, f);

  const std::size_t max_length = s.max_length;
  const std::size_t specials = impl->tokenizer.num_special_tokens_to_add(false);
  if (max_length <= specials) {
    throw Error(ErrorCode::kInvalidArgument, "max length " + std::to_string(max_length) + " leaves no room for text");
  }
  info.max_length = max_length;
  impl->runner.describe(info);

  // The pipeline pads per batch itself; the file's own padding (often a
  // fixed 128) would only waste compute, and truncation follows the model.
  impl->tokenizer.set_padding(std::nullopt);
  impl->tokenizer.set_truncation(TruncationParams{max_length, TruncationStrategy::kLongestFirst, 0, Direction::kRight});
  impl->tokenizer.set_invalid_utf8(options.invalid_utf8);
  if (f.colbert) {
    // Each side's length counts its marker token, which comes after tokenizing.
    const auto& mv = info.multi_vector;
    const auto limit = [&](std::size_t length, bool marker) { return length - (marker ? 1 : 0); };
    if (info.dense.prompt.size() != 0) {
      throw Error(ErrorCode::kUnsupported, f.root.string() + ": a ColBERT model takes no prompt");
    }
    if (f.max_position_embeddings && mv.query_length > *f.max_position_embeddings) {
      throw Error(ErrorCode::kUnsupported, f.root.string() + ": query_length " + std::to_string(mv.query_length) +
                                               " exceeds the model's " + std::to_string(*f.max_position_embeddings) +
                                               " positions");
    }
    impl->tokenizer.set_truncation(TruncationParams{limit(max_length, impl->document_prefix_id.has_value()),
                                                    TruncationStrategy::kLongestFirst, 0, Direction::kRight});
    auto query = std::make_unique<Tokenizer>(Tokenizer::from_file(f.tokenizer_file));
    query->set_padding(std::nullopt);
    query->set_truncation(TruncationParams{limit(mv.query_length, impl->query_prefix_id.has_value()),
                                           TruncationStrategy::kLongestFirst, 0, Direction::kRight});
    query->set_invalid_utf8(options.invalid_utf8);
    impl->query_tokenizer = std::move(query);
  }
  impl->batch_size = options.batch_size;
  impl->dimensions = options.dimensions;
  impl->invalid_utf8 = options.invalid_utf8;

  // Models such as INSTRUCTOR pool without the prompt: its tokens, from the
  // start, are masked out of pooling.
  if (!info.dense.prompt.empty() && !f.pooling_include_prompt && info.pooled_by_model) {
    throw Error(ErrorCode::kUnsupported,
                "the model pools inside the ONNX graph, so its prompt (include_prompt "
                "false in the pooling configuration) cannot be left out of pooling");
  }
  info.dense.prompt_length = impl->prompt_pooling_skip(info.dense.prompt);
  impl->plan_heads();
  return Embedder(std::move(impl));
}

const ModelInfo& Embedder::info() const noexcept {
  return impl_->info;
}
const Tokenizer& Embedder::tokenizer() const noexcept {
  return impl_->tokenizer;
}

Embeddings Embedder::embed(const std::vector<std::string>& texts, EmbedTimings* timings) const {
  std::vector<std::string_view> views(texts.begin(), texts.end());
  return embed(std::span<const std::string_view>(views), timings);
}

std::vector<EncodedText> Embedder::encode(std::span<const std::string_view> texts, const EncodeOptions& options) const {
  const Impl& m = *impl_;
  auto [prompt, prompt_tokens] = m.prompt_for(options.prompt, options.prompt_name);
  // sentence-transformers prepends the prompt to the text before tokenizing.
  std::vector<std::string> prompted;
  std::vector<std::string_view> prompted_views;
  if (!prompt.empty()) {
    prompted.reserve(texts.size());
    for (const std::string_view text : texts) {
      prompted.push_back(prompt);
      prompted.back().append(text);
    }
    prompted_views.assign(prompted.begin(), prompted.end());
    texts = prompted_views;
  }
  const Tokenizer& tokenizer = m.tokenizer_for(options.truncation_direction);
  // An error names the input index.
  std::vector<Encoding> encodings = tokenizer.encode_each(texts, true, options.threads);
  std::vector<EncodedText> out;
  out.reserve(encodings.size());
  const std::size_t specials = tokenizer.num_special_tokens_to_add(false);
  for (std::size_t i = 0; i < encodings.size(); ++i) {
    Encoding& e = encodings[i];
    if (!options.truncate && !e.overflowing.empty()) {
      // Windows do not overlap (stride 0), each has its own special tokens.
      std::size_t given = e.size();
      for (const Encoding& w : e.overflowing) given += w.size() - std::min(w.size(), specials);
      throw Error(ErrorCode::kInvalidInput,
                  "has " + std::to_string(given) + " tokens, more than the model's maximum of " +
                      std::to_string(m.info.max_length) + " (ask for truncation to cut it)",
                  i);
    }
    e.overflowing.clear();
    e.overflowing.shrink_to_fit();
    out.push_back({std::move(e), prompt_tokens});
  }
  return out;
}

std::vector<float> Embedder::run_batch(std::span<const EncodedText* const> inputs, EmbedTimings* timings) const {
  const Impl& m = *impl_;
  EmbedTimings local;
  EmbedTimings& t = timings != nullptr ? *timings : local;
  if (inputs.empty()) return {};

  const std::vector<const Encoding*> encodings = pipeline::encodings_of(inputs);
  const pipeline::RunOutput run = m.runner.run(encodings, m.spec.output, !m.info.pooled_by_model, &t);
  const std::size_t batch = run.rows;
  const std::size_t seq = run.sequence;

  const auto start = Clock::now();
  const auto& s = run.output.shape();
  const std::size_t dim = s.empty() ? 0 : static_cast<std::size_t>(s.back());
  if (s.size() != (m.info.pooled_by_model ? 2U : 3U) || dim == 0 ||
      (m.spec.graph_width != 0 && dim != m.spec.graph_width)) {
    throw Error(ErrorCode::kRuntime, "model output \"" + m.info.output + "\" has shape " + shape_text(s) + " for " +
                                         std::to_string(batch) + " inputs of " + std::to_string(seq) + " tokens");
  }
  std::vector<float> rows;
  if (m.info.output_kind == OutputKind::kSparse) {
    rows = pipeline::splade_rows(run, m.info.pooled_by_model, m.info.sparse_pooling);
  } else {
    std::vector<std::size_t> prompt_tokens;
    prompt_tokens.reserve(inputs.size());
    for (const EncodedText* input : inputs) prompt_tokens.push_back(input->prompt_tokens);
    rows = pipeline::dense_rows(run, m.info.pooled_by_model, prompt_tokens, m.info.dense.pooling_modes,
                                m.spec.vector_modules);
  }
  t.pool_seconds += seconds_since(start);
  return rows;
}

void Embedder::finish(std::span<const float> pooled, std::size_t dimensions, bool normalize, float* out) {
  if (dimensions > pooled.size()) {
    throw Error(ErrorCode::kInvalidArgument, "dimensions " + std::to_string(dimensions) + " exceeds the model's " +
                                                 std::to_string(pooled.size()) + " dimensions");
  }
  std::copy_n(pooled.begin(), dimensions, out);
  if (normalize) pipeline::l2_normalize(out, dimensions);
}

namespace {

// Runs the inputs in length-sorted batches; `take` gets each batch's pooled
// rows (run_batch()) and the input index of each row.
template <typename Take>
void for_each_pooled_batch(const Embedder& embedder, std::size_t batch_size, const std::vector<EncodedText>& encoded,
                           EmbedTimings& t, Take take) {
  std::vector<std::size_t> lengths;
  lengths.reserve(encoded.size());
  for (const EncodedText& e : encoded) lengths.push_back(e.encoding.size());
  std::vector<const EncodedText*> batch;
  pipeline::for_each_batch(lengths, batch_size, [&](std::span<const std::size_t> rows) {
    batch.clear();
    for (const std::size_t i : rows) batch.push_back(&encoded[i]);
    const std::vector<float> pooled = embedder.run_batch(batch, &t);
    const auto start = Clock::now();
    take(pooled, rows);
    t.pool_seconds += seconds_since(start);
  });
}

// What a call that wants another kind of output than the model's is told.
[[noreturn]] void refuse_output_kind(const ModelInfo& info, model::Kind kind, OutputKind wanted) {
  if (info.output_kind == OutputKind::kSparse) {
    throw Error(ErrorCode::kUnsupported,
                info.folder.string() +
                    " is a sparse (SPLADE) model: ask for sparse vectors (sieve embed --sparse, POST /embed_sparse)");
  }
  if (info.output_kind == OutputKind::kMultiVector) {
    throw Error(ErrorCode::kUnsupported, info.folder.string() +
                                             " is a late-interaction (ColBERT) model: ask for token vectors (sieve "
                                             "embed --multi-vector, POST /embed_all) or rerank with it");
  }
  const std::string use = std::string("; use ") + model::kind_commands(kind);
  if (wanted == OutputKind::kMultiVector) {
    throw Error(ErrorCode::kUnsupported,
                info.folder.string() + " is a dense embedding model: token vectors come from ColBERT models" + use);
  }
  throw Error(ErrorCode::kUnsupported,
              info.folder.string() + " is a dense embedding model: sparse vectors come from SPLADE models" + use);
}

}  // namespace

Embeddings Embedder::embed(std::span<const std::string_view> texts, EmbedTimings* timings) const {
  return embed(texts, EmbedOptions{}, timings);
}

Embeddings Embedder::embed(std::span<const std::string_view> texts, const EmbedOptions& options,
                           EmbedTimings* timings) const {
  const Impl& m = *impl_;
  if (m.info.output_kind != OutputKind::kDense) refuse_output_kind(m.info, m.spec.kind, OutputKind::kDense);
  const std::size_t keep = m.kept_dimensions(options.dimensions);
  const bool normalize = options.normalize.value_or(m.info.normalize);
  EmbedTimings local;
  EmbedTimings& t = timings != nullptr ? *timings : local;

  const auto start = Clock::now();
  // Every core tokenizes (the ORT runs that follow use them all anyway).
  EncodeOptions encoding;
  encoding.prompt_name = options.prompt_name;
  encoding.prompt = options.prompt;
  const std::vector<EncodedText> encoded = encode(texts, encoding);
  t.tokenize_seconds += seconds_since(start);

  Embeddings result;
  result.rows = texts.size();
  result.dimension = keep;
  result.data.resize(result.rows * keep);
  std::size_t done = 0;
  for_each_pooled_batch(*this, options.batch_size > 0 ? options.batch_size : m.batch_size, encoded, t,
                        [&](const std::vector<float>& pooled, std::span<const std::size_t> rows) {
                          const std::size_t dim = pooled.size() / rows.size();
                          for (std::size_t row = 0; row < rows.size(); ++row) {
                            finish(std::span<const float>(pooled).subspan(row * dim, dim), keep, normalize,
                                   result.data.data() + rows[row] * keep);
                          }
                          done += rows.size();
                          if (options.progress && !options.progress(done, result.rows)) {
                            throw Error(ErrorCode::kCancelled, "stopped after " + std::to_string(done) + " of " +
                                                                   std::to_string(result.rows) + " inputs");
                          }
                        });
  return result;
}

Embeddings Embedder::embed_late_chunks(std::span<const std::string_view> chunks, const LateChunkOptions& options,
                                       EmbedTimings* timings) const {
  const pipeline::JoinedChunks joined = pipeline::join_chunks(chunks, options.separator);
  return embed_late_chunks(joined.document, joined.spans, options, timings);
}

LateChunkWork Embedder::prepare_late_chunks(std::string_view text, std::span<const TextSpan> spans,
                                            const LateChunkOptions& options, EmbedTimings* timings) const {
  const Impl& m = *impl_;
  if (m.info.output_kind != OutputKind::kDense) refuse_output_kind(m.info, m.spec.kind, OutputKind::kDense);
  if (m.info.pooled_by_model) {
    throw Error(ErrorCode::kUnsupported, m.info.folder.string() +
                                             " pools inside its ONNX graph, so it gives no token states for late "
                                             "chunking (export it with its token states: sieve-export export)");
  }
  for (const Pooling mode : m.info.dense.pooling_modes) {
    if (!pipeline::late_chunking_pools_by(mode)) {
      throw Error(ErrorCode::kUnsupported, m.info.folder.string() + " pools by " + to_string(mode) +
                                               ": late chunking pools each chunk's own tokens, by mean or max");
    }
  }
  const EmbedOptions& embed_options = options.embed;
  LateChunkWork work;
  work.dimensions = m.kept_dimensions(embed_options.dimensions);
  work.normalize = embed_options.normalize.value_or(m.info.normalize);
  if (spans.empty()) return work;

  const auto start = Clock::now();
  // The prompt goes before the document, as encode() puts it before a text; its tokens lie before every chunk.
  const auto [prompt, prompt_tokens] = m.prompt_for(embed_options.prompt, embed_options.prompt_name);
  std::vector<TextSpan> shifted(spans.begin(), spans.end());
  for (TextSpan& span : shifted) {
    if (span.begin > span.end || span.end > text.size()) {
      throw Error(ErrorCode::kInvalidArgument, "chunk " + std::to_string(&span - shifted.data()) + " (bytes " +
                                                   std::to_string(span.begin) + " to " + std::to_string(span.end) +
                                                   ") is not within the document's " + std::to_string(text.size()) +
                                                   " bytes");
    }
    span.begin += prompt.size();
    span.end += prompt.size();
  }
  std::string prompted;
  if (!prompt.empty()) prompted = prompt + std::string(text);
  const Encoding document = m.untruncated_tokenizer().encode(prompt.empty() ? text : prompted, true);
  const pipeline::WindowPlan plan = pipeline::plan_windows(document, m.info.max_length, options.overlap);
  if (options.max_windows > 0 && plan.windows.size() > options.max_windows) {
    throw Error(ErrorCode::kInvalidInput, "the document's " + std::to_string(document.size()) + " tokens need " +
                                              std::to_string(plan.windows.size()) + " windows of the model's " +
                                              std::to_string(m.info.max_length) + " tokens, more than the " +
                                              std::to_string(options.max_windows) +
                                              " a request may run: send it in parts");
  }
  work.chunk_tokens = pipeline::chunk_tokens(document, plan, shifted);
  for (std::size_t i = 0; i < work.chunk_tokens.size(); ++i) {
    if (work.chunk_tokens[i].empty()) {
      throw Error(ErrorCode::kInvalidInput, "holds no token (late chunking needs text in every chunk)", i);
    }
  }
  work.leading = plan.leading;
  work.owner = plan.owner;
  work.windows.reserve(plan.windows.size());
  for (const pipeline::Window& w : plan.windows) {
    work.windows.push_back(pipeline::window_encoding(document, plan, w));
    work.window_tokens.push_back(work.windows.back().size());
    work.window_first.push_back(w.first);
  }
  if (timings != nullptr) timings->tokenize_seconds += seconds_since(start);
  return work;
}

std::vector<std::vector<float>> Embedder::run_window_states(std::span<const Encoding* const> windows,
                                                            EmbedTimings* timings) const {
  const Impl& m = *impl_;
  std::vector<std::vector<float>> out;
  if (windows.empty()) return out;
  EmbedTimings local;
  const pipeline::RunOutput run = m.runner.run(windows, m.spec.output, true, timings != nullptr ? timings : &local);
  const auto& shape = run.output.shape();
  const std::size_t dim = shape.size() == 3 && shape.back() > 0 ? static_cast<std::size_t>(shape.back()) : 0;
  if (dim == 0 || (m.spec.graph_width != 0 && dim != m.spec.graph_width) ||
      static_cast<std::size_t>(shape[0]) != windows.size() || static_cast<std::size_t>(shape[1]) != run.sequence) {
    throw Error(ErrorCode::kRuntime, "model output \"" + m.info.output + "\" has shape " + shape_text(shape) + " for " +
                                         std::to_string(windows.size()) + " windows of " +
                                         std::to_string(run.sequence) + " tokens");
  }
  out.reserve(windows.size());
  for (std::size_t row = 0; row < windows.size(); ++row) {
    const float* begin = run.output.data() + row * run.sequence * dim;
    out.emplace_back(begin, begin + windows[row]->size() * dim);
  }
  return out;
}

Embeddings Embedder::pool_late_chunks(const LateChunkWork& work, std::span<const std::vector<float>> states,
                                      EmbedTimings* timings) const {
  const Impl& m = *impl_;
  Embeddings result;
  result.rows = work.chunk_tokens.size();
  result.dimension = work.dimensions;
  if (result.rows == 0) return result;
  if (states.size() != work.window_tokens.size() || states.empty() || work.window_tokens[0] == 0) {
    throw Error(ErrorCode::kInvalidArgument, "late chunking pools " + std::to_string(work.window_tokens.size()) +
                                                 " windows' states, given " + std::to_string(states.size()));
  }
  const auto start = Clock::now();
  const std::size_t dim = states[0].size() / work.window_tokens[0];
  // Each content token's state, from the window that owns it.
  std::vector<float> token_states(work.owner.size() * dim);
  for (std::size_t token = 0; token < work.owner.size(); ++token) {
    const std::size_t w = work.owner[token];
    if (w >= states.size() || w >= work.window_first.size() || token < work.window_first[w]) {
      throw Error(ErrorCode::kInvalidArgument,
                  "late chunking's plan gives token " + std::to_string(token) + " a window that does not hold it");
    }
    const std::size_t position = work.leading + token - work.window_first[w];
    if (states[w].size() != work.window_tokens[w] * dim || position >= work.window_tokens[w]) {
      throw Error(ErrorCode::kInvalidArgument,
                  "late chunking was given states of another shape for window " + std::to_string(w));
    }
    std::copy_n(states[w].begin() + static_cast<std::ptrdiff_t>(position * dim), dim,
                token_states.begin() + static_cast<std::ptrdiff_t>(token * dim));
  }
  for (const auto& tokens : work.chunk_tokens) {
    if (tokens.empty() || *std::max_element(tokens.begin(), tokens.end()) >= work.owner.size()) {
      throw Error(ErrorCode::kInvalidArgument, "late chunking's plan gives a chunk tokens the document lacks");
    }
  }
  const std::size_t pooled_width = dim * m.info.dense.pooling_modes.size();
  std::vector<float> pooled = pipeline::pool_chunks(token_states, dim, work.chunk_tokens, m.info.dense.pooling_modes);
  pooled = pipeline::apply_vector_modules(m.spec.vector_modules, std::move(pooled), result.rows, pooled_width);
  const std::size_t width = pooled.size() / result.rows;
  result.data.resize(result.rows * work.dimensions);
  for (std::size_t i = 0; i < result.rows; ++i) {
    finish(std::span<const float>(pooled).subspan(i * width, width), work.dimensions, work.normalize,
           result.data.data() + i * work.dimensions);
  }
  if (timings != nullptr) timings->pool_seconds += seconds_since(start);
  return result;
}

Embeddings Embedder::embed_late_chunks(std::string_view text, std::span<const TextSpan> spans,
                                       const LateChunkOptions& options, EmbedTimings* timings) const {
  const Impl& m = *impl_;
  const LateChunkWork work = prepare_late_chunks(text, spans, options, timings);
  std::vector<std::vector<float>> states(work.windows.size());
  std::vector<const Encoding*> batch;
  const std::size_t batch_size = options.embed.batch_size > 0 ? options.embed.batch_size : m.batch_size;
  pipeline::for_each_batch(work.window_tokens, batch_size, [&](std::span<const std::size_t> rows) {
    batch.clear();
    for (const std::size_t i : rows) batch.push_back(&work.windows[i]);
    auto run = run_window_states(batch, timings);
    for (std::size_t r = 0; r < rows.size(); ++r) states[rows[r]] = std::move(run[r]);
  });
  return pool_late_chunks(work, states, timings);
}

std::vector<SparseVector> Embedder::embed_sparse(std::span<const std::string_view> texts, const SparseOptions& options,
                                                 EmbedTimings* timings) const {
  const Impl& m = *impl_;
  if (m.info.output_kind != OutputKind::kSparse && !m.info.bge_m3.lexical) {
    refuse_output_kind(m.info, m.spec.kind, OutputKind::kSparse);
  }
  EmbedTimings local;
  EmbedTimings& t = timings != nullptr ? *timings : local;
  const auto start = Clock::now();
  const std::vector<EncodedText> encoded = encode(texts);
  t.tokenize_seconds += seconds_since(start);
  if (m.info.output_kind != OutputKind::kSparse) {
    // BGE-M3's lexical weights, from their own output.
    std::vector<SparseVector> result = pipeline::run_in_batches(
        encoded, m.batch_size, [&](std::span<const EncodedText* const> batch) { return run_lexical_batch(batch, &t); });
    for (SparseVector& v : result) prune(v, options);
    return result;
  }
  std::vector<SparseVector> result(texts.size());
  for_each_pooled_batch(
      *this, m.batch_size, encoded, t, [&](const std::vector<float>& pooled, std::span<const std::size_t> rows) {
        const std::size_t dim = pooled.size() / rows.size();
        for (std::size_t row = 0; row < rows.size(); ++row) {
          result[rows[row]] = sparsify(std::span<const float>(pooled).subspan(row * dim, dim), options);
        }
      });
  return result;
}

std::vector<SparseVector> Embedder::run_lexical_batch(std::span<const EncodedText* const> inputs,
                                                      EmbedTimings* timings) const {
  const Impl& m = *impl_;
  if (!m.spec.sparse_output) refuse_output_kind(m.info, m.spec.kind, OutputKind::kSparse);
  EmbedTimings local;
  EmbedTimings& t = timings != nullptr ? *timings : local;
  if (inputs.empty()) return {};
  const std::vector<const Encoding*> encodings = pipeline::encodings_of(inputs);
  const pipeline::RunOutput run = m.runner.run(encodings, *m.spec.sparse_output, true, &t);
  const auto start = Clock::now();
  if (run.output.shape().size() != 2) {
    throw Error(ErrorCode::kRuntime, "model output \"sparse_weights\" has shape " + shape_text(run.output.shape()));
  }
  std::vector<SparseVector> result = pipeline::lexical_weights(run, encodings, m.unused_tokens);
  t.pool_seconds += seconds_since(start);
  return result;
}

std::vector<TokenInput> Embedder::encode_tokens(std::span<const std::string_view> texts, TextRole role, bool truncate,
                                                std::size_t threads) const {
  const Impl& m = *impl_;
  const bool late = m.info.output_kind == OutputKind::kMultiVector;
  if (!late && !m.info.bge_m3.token_vectors) refuse_output_kind(m.info, m.spec.kind, OutputKind::kMultiVector);
  std::vector<TokenInput> out;
  out.reserve(texts.size());
  // A ColBERT model tokenizes each side its own way; BGE-M3 as for its dense vectors.
  if (late) {
    for (Encoding& e : m.encode_late(texts, role, threads)) out.push_back({std::move(e), role});
  } else {
    EncodeOptions options;
    options.truncate = truncate;
    options.threads = threads;
    for (EncodedText& e : encode(texts, options)) out.push_back({std::move(e.encoding), role});
  }
  return out;
}

std::vector<TokenVectors> Embedder::run_token_batch(std::span<const TokenInput* const> inputs,
                                                    EmbedTimings* timings) const {
  const Impl& m = *impl_;
  const bool late = m.info.output_kind == OutputKind::kMultiVector;
  if (!late && !m.info.bge_m3.token_vectors) refuse_output_kind(m.info, m.spec.kind, OutputKind::kMultiVector);
  EmbedTimings local;
  EmbedTimings& t = timings != nullptr ? *timings : local;
  if (inputs.empty()) return {};
  const std::vector<const Encoding*> encodings = pipeline::encodings_of(inputs);
  const std::size_t output = late ? m.spec.output : *m.spec.token_output;
  const pipeline::RunOutput run = m.runner.run(encodings, output, true, &t);
  const auto start = Clock::now();
  const auto& s = run.output.shape();
  const std::size_t expected = late ? m.spec.graph_width : m.info.bge_m3.token_dimension;
  const auto width = static_cast<std::size_t>(s.size() == 3 ? s[2] : 0);
  if (width == 0 || (expected != 0 && width != expected)) {
    throw Error(ErrorCode::kRuntime,
                "model output \"" + m.runner.session().outputs()[output].name + "\" has shape " + shape_text(s));
  }
  pipeline::TokenVectorRules rules;
  rules.colbert = late;
  rules.query_expansion = m.info.multi_vector.query_expansion;
  rules.skiplist = &m.skiplist;
  if (late) {
    rules.modules = m.spec.token_modules;
    rules.dimension = m.info.model_dimension;
  }
  std::vector<TokenVectors> result = pipeline::token_vectors(run, inputs, rules);
  t.pool_seconds += seconds_since(start);
  return result;
}

std::vector<TokenVectors> Embedder::embed_tokens(std::span<const std::string_view> texts, TextRole role,
                                                 EmbedTimings* timings) const {
  const Impl& m = *impl_;
  EmbedTimings local;
  EmbedTimings& t = timings != nullptr ? *timings : local;
  const auto start = Clock::now();
  const std::vector<TokenInput> encoded = encode_tokens(texts, role);
  t.tokenize_seconds += seconds_since(start);
  return pipeline::run_in_batches(encoded, m.batch_size,
                                  [&](std::span<const TokenInput* const> batch) { return run_token_batch(batch, &t); });
}

void Embedder::prune(SparseVector& vector, const SparseOptions& options) {
  pipeline::prune(vector, options);
}

SparseVector Embedder::sparsify(std::span<const float> pooled, const SparseOptions& options) {
  return pipeline::sparsify(pooled, options);
}

}  // namespace sieve
