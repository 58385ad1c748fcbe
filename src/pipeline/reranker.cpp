#include "sieve/reranker.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>

#include "model/llm_reranker.hpp"
#include "model/model_folder.hpp"
#include "model/model_spec.hpp"
#include "model/token_ids.hpp"
#include "pipeline/heads/llm_score_head.hpp"
#include "pipeline/heads/pair_score_head.hpp"
#include "pipeline/model_inputs.hpp"
#include "pipeline/runner.hpp"
#include "runtime/session.hpp"
#include "sieve/error.hpp"
#include "sieve/text.hpp"

namespace sieve {
namespace {

namespace fs = std::filesystem;

// Whether transformers' tokenizer hands the model token types: unless
// tokenizer_config.json's model_input_names leaves them out.
bool tokenizer_gives_token_types(const fs::path& folder) {
  const auto config = model::read_json_file(folder / "tokenizer_config.json");
  if (!config) return true;
  const auto names = config->find("model_input_names");
  if (names == config->end() || !names->is_array()) return true;
  return std::any_of(names->begin(), names->end(),
                     [](const nlohmann::json& n) { return n.is_string() && n.get<std::string>() == "token_type_ids"; });
}

}  // namespace

const char* to_string(ScoreActivation activation) noexcept {
  switch (activation) {
    case ScoreActivation::kAuto: return "auto";
    case ScoreActivation::kNone: return "none";
    case ScoreActivation::kSigmoid: return "sigmoid";
    case ScoreActivation::kSoftmax: return "softmax";
  }
  return "auto";
}

ScoreActivation parse_score_activation(std::string_view name) {
  if (name == "auto") return ScoreActivation::kAuto;
  if (name == "none" || name == "identity" || name == "raw") return ScoreActivation::kNone;
  if (name == "sigmoid") return ScoreActivation::kSigmoid;
  if (name == "softmax") return ScoreActivation::kSoftmax;
  throw Error(ErrorCode::kInvalidArgument,
              "unknown score activation \"" + std::string(name) + "\" (auto, none, sigmoid, softmax)");
}

struct Reranker::Impl {
  model::ModelFolder folder;
  model::ModelSpec spec;                  // its kind, logits output, labels, head and LLM prompt
  std::vector<std::uint32_t> llm_prefix;  // the prompt's token ids before and after the text
  std::vector<std::uint32_t> llm_suffix;
  std::size_t llm_text_limit = 0;  // tokens left for the text between them
  Tokenizer tokenizer;
  pipeline::Runner runner;  // the session and its inputs
  ModelInfo info;           // with the labels and activations in info.pairs
  std::size_t batch_size = 32;

  Impl(model::ModelFolder f, model::ModelSpec p, Tokenizer t, runtime::Session s)
      : folder(std::move(f)), spec(std::move(p)), tokenizer(std::move(t)), runner(std::move(s), folder.onnx_file) {}
};

Reranker::Reranker(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Reranker::Reranker(std::unique_ptr<Embedder> late) : late_(std::move(late)) {}
Reranker::Reranker(Reranker&&) noexcept = default;
Reranker& Reranker::operator=(Reranker&&) noexcept = default;
Reranker::~Reranker() = default;

Reranker Reranker::load(const fs::path& folder_path, const RerankerOptions& options) {
  if (options.batch_size == 0) throw Error(ErrorCode::kInvalidArgument, "batch size must be at least 1");
  auto folder = model::read_model_folder(folder_path);
  if (folder.colbert) {
    if (options.activation != ScoreActivation::kAuto && options.activation != ScoreActivation::kNone) {
      throw Error(ErrorCode::kInvalidArgument,
                  folder_path.string() + ": a ColBERT model's scores are MaxSim sums; no activation applies");
    }
    EmbedderOptions late;
    late.runtime = options.runtime;
    late.max_length = options.max_length;
    late.batch_size = options.batch_size;
    late.invalid_utf8 = options.invalid_utf8;
    return Reranker(std::make_unique<Embedder>(Embedder::load(folder_path, late)));
  }
  // Decided before the (slow) session is made: a folder of another kind is refused at once.
  const auto summary = model::read_onnx_summary(folder.onnx_file);
  if (const model::Kind kind = model::detect_kind(folder, summary); !model::scores_pairs(kind)) {
    // A folder no command can run (a causal LM without its llm_reranker.json, ...) is told what it is.
    (void)model::resolve_model(folder, summary);
    const auto& archs = folder.architectures;
    const std::string use =
        std::string(" (it is ") + model::kind_noun(kind) + ": use it with " + model::kind_commands(kind) + ")";
    if (archs.empty()) {
      const bool logits = std::any_of(summary.outputs.begin(), summary.outputs.end(), [](const model::OnnxTensor& o) {
        return o.name == "logits" && o.shape.size() == 2;
      });
      throw Error(ErrorCode::kUnsupported,
                  folder.onnx_file.string() + ": not a cross-encoder: " +
                      (logits ? std::string("config.json names no *ForSequenceClassification architecture, and the "
                                            "graph gives token states beside its logits")
                              : std::string("no float \"logits\" output of shape [batch, labels]")) +
                      use + "; outputs:" + model::describe_outputs(summary));
    }
    throw Error(ErrorCode::kUnsupported, folder_path.string() +
                                             ": not a cross-encoder: config.json architectures are " +
                                             join(archs, ", ") + ", expected a *ForSequenceClassification model" + use);
  }
  auto tokenizer = Tokenizer::from_file(folder.tokenizer_file);
  model::check_token_ids(folder, summary, tokenizer);
  model::ModelSpec spec = model::resolve_model(folder, summary, {options.max_length, std::nullopt});
  runtime::Session session(folder.onnx_file, options.runtime, pipeline::graph_names(summary));
  auto impl = std::make_unique<Impl>(std::move(folder), std::move(spec), std::move(tokenizer), std::move(session));
  const auto& f = impl->folder;
  const auto& onnx = f.onnx_file;
  const model::ModelSpec& s = impl->spec;
  const model::HeadConfig& head = s.head;

  const runtime::Session& live = impl->runner.session();
  if (!s.llm && !impl->runner.slots().token_type_ids && head.type_vocab_size.value_or(1) > 1 &&
      tokenizer_gives_token_types(f.root)) {
    // A graph without token types embeds every token as type 0; where the
    // tokenizer marks the second text as type 1 and the model tells types
    // apart, its scores would silently differ from CrossEncoder's.
    const Encoding probe = impl->tokenizer.encode_pair("a", "b", true);
    if (std::any_of(probe.type_ids.begin(), probe.type_ids.end(), [](std::uint32_t t) { return t != 0; })) {
      throw Error(ErrorCode::kUnsupported,
                  onnx.string() +
                      ": the graph takes no token_type_ids, but the tokenizer marks the second text of "
                      "a pair as type 1 and config.json has type_vocab_size " +
                      std::to_string(*head.type_vocab_size) +
                      ", so every pair would be scored as one text; use a graph that takes token_type_ids");
    }
  }
  const auto& out = pipeline::output_at(live, s.output, s.output_name, onnx);
  PairInfo& pairs = impl->info.pairs;
  pairs.labels = s.dimension;
  if (s.llm) {
    pairs.label_names = {s.llm->no_token, s.llm->yes_token};
    pairs.label = 1;
    // softmax([no, yes])[yes] is sigmoid(yes - no): reported as a sigmoid
    // of that log-odds, which is also the raw score.
    pairs.activation =
        options.activation == ScoreActivation::kNone ? ScoreActivation::kNone : ScoreActivation::kSigmoid;
    pairs.classification_activation = ScoreActivation::kSoftmax;
  } else {
    if (options.label >= pairs.labels) {
      throw Error(ErrorCode::kInvalidArgument, "label " + std::to_string(options.label) +
                                                   " does not exist: the model has " + std::to_string(pairs.labels) +
                                                   " label(s)");
    }
    pairs.label = options.label;
    for (std::size_t i = 0; i < pairs.labels; ++i) {
      const auto it = head.id2label.find(i);
      pairs.label_names.push_back(it != head.id2label.end() ? it->second : "LABEL_" + std::to_string(i));
    }

    ScoreActivation activation = options.activation;
    if (activation == ScoreActivation::kAuto) {
      activation = head.activation.value_or(pairs.labels == 1 ? ScoreActivation::kSigmoid : ScoreActivation::kSoftmax);
    }
    if (activation == ScoreActivation::kSoftmax && pairs.labels == 1) {
      // CrossEncoder's apply_softmax only acts on several labels; a softmax
      // over one logit would be 1 for every pair.
      activation = ScoreActivation::kSigmoid;
    }
    pairs.activation = activation;
    if (head.problem_type == "regression") {
      pairs.classification_activation = ScoreActivation::kNone;
    } else if (head.problem_type == "multi_label_classification" || pairs.labels == 1) {
      pairs.classification_activation = ScoreActivation::kSigmoid;
    } else {
      pairs.classification_activation = ScoreActivation::kSoftmax;
    }
  }

  ModelInfo& info = impl->info;
  info.folder = f.root;
  info.onnx_file = onnx;
  info.type = s.kind;
  info.output = out.name;
  info.pairs.llm = s.llm.has_value();

  // CrossEncoder truncates to the tokenizer's model_max_length
  // (tokenizer_config.json), not to tokenizer.json's own truncation; an LLM
  // reranker to its model card's limit.
  const std::size_t max_length = s.max_length;
  std::size_t text_limit = max_length;
  if (s.llm) {
    impl->llm_prefix = impl->tokenizer.encode(s.llm->prefix, false).ids;
    impl->llm_suffix = impl->tokenizer.encode(s.llm->suffix, false).ids;
    const std::size_t prompt = impl->llm_prefix.size() + impl->llm_suffix.size();
    if (max_length <= prompt) {
      throw Error(ErrorCode::kInvalidArgument, "max length " + std::to_string(max_length) +
                                                   " leaves no room for text after the prompt's " +
                                                   std::to_string(prompt) + " tokens");
    }
    text_limit = max_length - prompt;
    impl->llm_text_limit = text_limit;
  } else if (max_length <= impl->tokenizer.num_special_tokens_to_add(true)) {
    throw Error(ErrorCode::kInvalidArgument, "max length " + std::to_string(max_length) + " leaves no room for text");
  }
  info.max_length = max_length;
  impl->runner.describe(info);

  // Batches are padded here; the file's own padding would only add work.
  impl->tokenizer.set_padding(std::nullopt);
  impl->tokenizer.set_truncation(TruncationParams{text_limit, options.truncation, 0, Direction::kRight});
  impl->tokenizer.set_invalid_utf8(options.invalid_utf8);
  impl->batch_size = options.batch_size;
  return Reranker(std::move(impl));
}

const ModelInfo& Reranker::info() const noexcept {
  return late_ ? late_->info() : impl_->info;
}
const Tokenizer& Reranker::tokenizer() const noexcept {
  return late_ ? late_->tokenizer() : impl_->tokenizer;
}
ScoreActivation Reranker::activation() const noexcept {
  return late_ ? ScoreActivation::kNone : impl_->info.pairs.activation;
}
std::size_t Reranker::num_labels() const noexcept {
  return late_ ? 1 : impl_->info.pairs.labels;
}
const std::vector<std::string>& Reranker::labels() const noexcept {
  static const std::vector<std::string> none;
  return late_ ? none : impl_->info.pairs.label_names;
}
ScoreActivation Reranker::classification_activation() const noexcept {
  return late_ ? ScoreActivation::kNone : impl_->info.pairs.classification_activation;
}
bool Reranker::is_llm_reranker() const noexcept {
  return !late_ && impl_->spec.llm.has_value();
}
bool Reranker::is_late_interaction() const noexcept {
  return late_ != nullptr;
}
const Embedder* Reranker::late_interaction_model() const noexcept {
  return late_.get();
}

// The pair-scoring and classification methods' model; a ColBERT model's caller is told what it serves.
const Reranker::Impl& Reranker::pair_scorer() const {
  if (late_) {
    throw Error(ErrorCode::kUnsupported, late_->info().folder.string() +
                                             " is a late-interaction (ColBERT) model: it scores documents by MaxSim "
                                             "of token vectors (score, rerank), not (query, document) pairs, and "
                                             "does not classify; use sieve rerank or sieve embed --multi-vector");
  }
  return *impl_;
}

namespace {

// Drops the overflow windows the tokenizer kept, or with `truncate` false
// refuses an input that had to be cut, naming its index.
void finish_encodings(std::vector<Encoding>& encodings, bool truncate, const std::string& limit) {
  for (std::size_t i = 0; i < encodings.size(); ++i) {
    Encoding& e = encodings[i];
    if (!truncate && !e.overflowing.empty()) {
      throw Error(ErrorCode::kInvalidInput, limit + " (ask for truncation to cut it)", i);
    }
    e.overflowing.clear();
    e.overflowing.shrink_to_fit();
  }
}

}  // namespace

std::vector<Encoding> Reranker::encode(std::string_view query, std::span<const std::string_view> documents,
                                       bool truncate, std::size_t threads) const {
  std::vector<TextPair> pairs;
  pairs.reserve(documents.size());
  for (const auto document : documents) pairs.push_back({query, document});
  return encode_for_scoring(pairs, truncate, threads);
}

std::vector<Encoding> Reranker::encode_for_scoring(std::span<const TextPair> pairs, bool truncate,
                                                   std::size_t threads) const {
  const Impl& m = pair_scorer();
  if (m.spec.llm) {
    // The recipe of the model card: the filled-in template alone is
    // tokenized (and cut), then put between the prompt's own tokens.
    const std::vector<std::string> bodies = pipeline::llm_bodies(*m.spec.llm, pairs);
    const std::vector<std::string_view> views(bodies.begin(), bodies.end());
    std::vector<Encoding> encodings = m.tokenizer.encode_each(views, false, threads);
    finish_encodings(encodings, truncate,
                     "with the query and the prompt, more than the model's maximum of " +
                         std::to_string(m.info.max_length) + " tokens");
    pipeline::wrap_in_prompt(encodings, m.llm_prefix, m.llm_suffix);
    return encodings;
  }
  // An error names the document's index.
  std::vector<Encoding> encodings = m.tokenizer.encode_pair_each(pairs, true, threads);
  finish_encodings(encodings, truncate,
                   "with the query, more than the model's maximum of " + std::to_string(m.info.max_length) +
                       " tokens (" + std::to_string(m.tokenizer.num_special_tokens_to_add(true)) + " of them special)");
  return encodings;
}

namespace {

void refuse_llm_classification(bool llm) {
  if (llm) {
    throw Error(ErrorCode::kUnsupported,
                "an LLM reranker scores (query, document) pairs; it does not classify; use sieve rerank");
  }
}

}  // namespace

std::vector<Encoding> Reranker::encode_texts(std::span<const std::string_view> texts, bool truncate,
                                             std::size_t threads) const {
  const Impl& m = pair_scorer();
  refuse_llm_classification(m.spec.llm.has_value());
  std::vector<Encoding> encodings = m.tokenizer.encode_each(texts, true, threads);
  finish_encodings(encodings, truncate,
                   "more than the model's maximum of " + std::to_string(m.info.max_length) + " tokens");
  return encodings;
}

std::vector<Encoding> Reranker::encode_pairs(std::span<const TextPair> pairs, bool truncate,
                                             std::size_t threads) const {
  const Impl& m = pair_scorer();
  refuse_llm_classification(m.spec.llm.has_value());
  std::vector<Encoding> encodings = m.tokenizer.encode_pair_each(pairs, true, threads);
  finish_encodings(encodings, truncate,
                   "the pair has more than the model's maximum of " + std::to_string(m.info.max_length) + " tokens");
  return encodings;
}

std::vector<float> Reranker::run_batch(std::span<const Encoding* const> pairs) const {
  const Impl& m = pair_scorer();
  if (pairs.empty()) return {};
  const pipeline::RunOutput run = m.runner.run(pairs, m.spec.output, false, nullptr);
  const runtime::FloatOutput& output = run.output;
  const auto& s = output.shape();
  const std::size_t labels = m.info.pairs.labels;
  if (s.size() != 2 || s[1] != static_cast<std::int64_t>(labels)) {
    throw Error(ErrorCode::kRuntime, "model output \"" + m.info.output + "\" has shape " + pipeline::shape_text(s) +
                                         " for " + std::to_string(run.rows) + " pairs, expected [" +
                                         std::to_string(run.rows) + ", " + std::to_string(labels) + "]");
  }
  return {output.data(), output.data() + pairs.size() * labels};
}

float Reranker::score_from_logits(std::span<const float> logits, bool raw) const {
  const Impl& m = pair_scorer();
  if (logits.size() != m.info.pairs.labels) {
    throw Error(ErrorCode::kInvalidArgument, std::to_string(logits.size()) + " logits given, the model has " +
                                                 std::to_string(m.info.pairs.labels) + " label(s)");
  }
  return m.spec.llm ? pipeline::llm_score(logits, m.info.pairs.activation, raw)
                    : pipeline::pair_score(logits, m.info.pairs.label, m.info.pairs.activation, raw);
}

std::vector<float> Reranker::label_scores(std::span<const float> logits, bool raw) const {
  const Impl& m = pair_scorer();
  if (logits.size() != m.info.pairs.labels) {
    throw Error(ErrorCode::kInvalidArgument, std::to_string(logits.size()) + " logits given, the model has " +
                                                 std::to_string(m.info.pairs.labels) + " label(s)");
  }
  return pipeline::label_scores(logits, m.info.pairs.classification_activation, raw);
}

std::vector<float> Reranker::run_all(const std::vector<Encoding>& encodings, std::size_t batch_size) const {
  const Impl& m = pair_scorer();
  const std::size_t labels = m.info.pairs.labels;
  std::vector<float> logits(encodings.size() * labels);
  if (encodings.empty()) return logits;
  std::vector<std::size_t> lengths;
  lengths.reserve(encodings.size());
  for (const Encoding& e : encodings) lengths.push_back(e.size());
  std::vector<const Encoding*> batch;
  pipeline::for_each_batch(lengths, batch_size == 0 ? m.batch_size : batch_size,
                           [&](std::span<const std::size_t> rows) {
                             batch.clear();
                             for (const std::size_t i : rows) batch.push_back(&encodings[i]);
                             const std::vector<float> out = run_batch(batch);
                             for (std::size_t row = 0; row < batch.size(); ++row) {
                               std::copy_n(out.begin() + static_cast<std::ptrdiff_t>(row * labels), labels,
                                           logits.begin() + static_cast<std::ptrdiff_t>(rows[row] * labels));
                             }
                           });
  return logits;
}

std::vector<float> Reranker::score(std::string_view query, std::span<const std::string_view> documents) const {
  if (late_) {
    const std::string_view queries[] = {query};
    const std::vector<TokenVectors> q = late_->embed_tokens(queries, TextRole::kQuery);
    return maxsim_each(q.front(), late_->embed_tokens(documents, TextRole::kDocument));
  }
  std::vector<TextPair> pairs;
  pairs.reserve(documents.size());
  for (const auto document : documents) pairs.push_back({query, document});
  return score_pairs(pairs);
}

std::vector<float> Reranker::score_pairs(std::span<const TextPair> pairs, std::size_t batch_size) const {
  std::vector<float> scores(pairs.size());
  if (late_) {
    // Each distinct query is embedded once, however many documents it is paired with.
    std::vector<std::string_view> queries;
    std::vector<std::size_t> query_of;
    std::vector<std::string_view> documents;
    std::map<std::string_view, std::size_t> seen;
    for (const auto& [query, document] : pairs) {
      const auto [it, added] = seen.emplace(query, queries.size());
      if (added) queries.push_back(query);
      query_of.push_back(it->second);
      documents.push_back(document);
    }
    const std::vector<TokenVectors> q = late_->embed_tokens(queries, TextRole::kQuery);
    const std::vector<TokenVectors> d = late_->embed_tokens(documents, TextRole::kDocument);
    for (std::size_t i = 0; i < pairs.size(); ++i) scores[i] = maxsim(q[query_of[i]], d[i]);
    return scores;
  }
  const std::size_t labels = impl_->info.pairs.labels;
  const std::vector<float> logits = run_all(encode_for_scoring(pairs, true, 0), batch_size);
  for (std::size_t i = 0; i < scores.size(); ++i) {
    scores[i] = score_from_logits(std::span<const float>(logits).subspan(i * labels, labels));
  }
  return scores;
}

namespace {

// Row-major logits of `labels` columns, each row activated in place.
std::vector<float> activate_rows(const Reranker& model, std::vector<float> logits, bool raw) {
  if (raw) return logits;
  const std::size_t labels = model.num_labels();
  for (std::size_t at = 0; at < logits.size(); at += labels) {
    const auto row = model.label_scores(std::span<const float>(logits).subspan(at, labels));
    std::copy(row.begin(), row.end(), logits.begin() + static_cast<std::ptrdiff_t>(at));
  }
  return logits;
}

}  // namespace

std::vector<float> Reranker::classify(std::span<const std::string_view> texts, bool raw) const {
  return activate_rows(*this, run_all(encode_texts(texts)), raw);
}

std::vector<float> Reranker::classify(std::span<const TextPair> pairs, bool raw) const {
  return activate_rows(*this, run_all(encode_pairs(pairs)), raw);
}

std::vector<std::size_t> rank_by_score(std::span<const float> scores) {
  std::vector<std::size_t> order(scores.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (std::isnan(scores[a])) return false;
    if (std::isnan(scores[b])) return true;
    return scores[a] > scores[b];
  });
  return order;
}

std::vector<RerankResult> Reranker::rerank(std::string_view query, std::span<const std::string_view> documents,
                                           std::size_t top_k) const {
  const std::vector<float> scores = score(query, documents);
  std::vector<std::size_t> order = rank_by_score(scores);
  if (top_k != 0 && top_k < order.size()) order.resize(top_k);
  std::vector<RerankResult> results;
  results.reserve(order.size());
  for (const std::size_t i : order) results.push_back({i, scores[i]});
  return results;
}

}  // namespace sieve
