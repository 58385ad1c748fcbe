#include "sieve/serving.hpp"

#include <algorithm>
#include <string>

#include "pipeline/late_chunking.hpp"

namespace sieve {
namespace {

// Waits for a ticket until the deadline, asking `abandoned` now and then;
// a request that ran out of time or was given up is cancelled so its
// queued inputs never run.
template <class Ticket>
auto wait_for(Ticket& ticket, ServiceClock::time_point deadline, const std::function<bool()>& abandoned) {
  auto next_check = ServiceClock::now() + kAbandonedFirstCheck;
  for (;;) {
    const auto until = abandoned ? std::min(deadline, next_check) : deadline;
    if (ticket.result.wait_until(until) == std::future_status::ready) return ticket.result.get();
    if (ServiceClock::now() >= deadline) {
      ticket.cancel();
      throw Error(ErrorCode::kTimeout, "the request's deadline passed before its inputs were run");
    }
    if (abandoned()) {
      ticket.cancel();
      throw Error(ErrorCode::kCancelled, "the client closed the connection before the answer was ready");
    }
    next_check = ServiceClock::now() + kAbandonedCheckEvery;
  }
}

// A run's row-major output as one vector per input, for the requests it served.
std::vector<std::vector<float>> split_rows(const std::vector<float>& flat, std::size_t rows) {
  const std::size_t width = flat.size() / rows;
  std::vector<std::vector<float>> out(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    const auto begin = flat.begin() + static_cast<std::ptrdiff_t>(i * width);
    out[i].assign(begin, begin + static_cast<std::ptrdiff_t>(width));
  }
  return out;
}

}  // namespace

EmbeddingService::EmbeddingService(std::shared_ptr<const Embedder> embedder, const SchedulerOptions& options,
                                   std::function<void(const BatchReport&)> observer)
    : embedder_(std::move(embedder)) {
  const ModelInfo& info = embedder_->info();
  const Embedder* model = embedder_.get();
  // A queue (and its workers) for each output the model gives, and only those.
  if (info.output_kind != OutputKind::kMultiVector) {
    scheduler_ = std::make_unique<BatchScheduler<EncodedText, std::vector<float>>>(
        options,
        [model](std::span<const EncodedText* const> inputs) {
          return split_rows(model->run_batch(inputs), inputs.size());
        },
        [](const EncodedText& input) { return input.encoding.size(); }, observer);
  }
  if (info.output_kind == OutputKind::kMultiVector || info.bge_m3.token_vectors) {
    tokens_ = std::make_unique<BatchScheduler<TokenInput, TokenVectors>>(
        options, [model](std::span<const TokenInput* const> inputs) { return model->run_token_batch(inputs); },
        [](const TokenInput& input) { return input.encoding.size(); }, observer);
  }
  const bool pools_spans =
      std::all_of(info.dense.pooling_modes.begin(), info.dense.pooling_modes.end(), pipeline::late_chunking_pools_by);
  if (info.output_kind == OutputKind::kDense && !info.pooled_by_model && pools_spans) {
    windows_ = std::make_unique<BatchScheduler<Encoding, std::vector<float>>>(
        options, [model](std::span<const Encoding* const> inputs) { return model->run_window_states(inputs); },
        [](const Encoding& input) { return input.size(); }, observer);
  }
  if (info.bge_m3.lexical) {
    lexical_ = std::make_unique<BatchScheduler<EncodedText, SparseVector>>(
        options, [model](std::span<const EncodedText* const> inputs) { return model->run_lexical_batch(inputs); },
        [](const EncodedText& input) { return input.encoding.size(); }, observer);
  }
}

std::size_t EmbeddingService::queued() const {
  return (scheduler_ ? scheduler_->queued() : 0) + (tokens_ ? tokens_->queued() : 0) +
         (lexical_ ? lexical_->queued() : 0) + (windows_ ? windows_->queued() : 0);
}

void EmbeddingService::stop() {
  if (scheduler_) scheduler_->stop();
  if (tokens_) tokens_->stop();
  if (lexical_) lexical_->stop();
  if (windows_) windows_->stop();
}

Embeddings EmbeddingService::embed_late_chunks(std::string_view document, std::span<const TextSpan> spans,
                                               const LateChunkOptions& options, ServiceClock::time_point deadline,
                                               const std::function<bool()>& abandoned, std::size_t* tokens) {
  // The model's own refusal (a pooling late chunking cannot do, a pooled graph) comes from here, as it would alone.
  LateChunkWork work = embedder_->prepare_late_chunks(document, spans, options);
  if (tokens != nullptr) {
    *tokens = 0;
    for (const std::size_t n : work.window_tokens) *tokens += n;
  }
  if (work.windows.empty()) return embedder_->pool_late_chunks(work, {});
  if (!windows_) throw Error(ErrorCode::kUnsupported, embedder_->info().folder.string() + " cannot late chunk");
  auto ticket = windows_->submit(std::move(work.windows), deadline);
  const std::vector<std::vector<float>> states = wait_for(ticket, deadline, abandoned);
  return embedder_->pool_late_chunks(work, states);
}

Embeddings EmbeddingService::embed_late_chunks(std::span<const std::string_view> chunks,
                                               const LateChunkOptions& options, ServiceClock::time_point deadline,
                                               const std::function<bool()>& abandoned, std::size_t* tokens) {
  const pipeline::JoinedChunks joined = pipeline::join_chunks(chunks, options.separator);
  return embed_late_chunks(joined.document, joined.spans, options, deadline, abandoned, tokens);
}

std::vector<TokenInput> EmbeddingService::encode_tokens(std::span<const std::string_view> texts, TextRole role,
                                                        bool truncate) const {
  // One thread: the server tokenizes many requests at once on its own threads.
  return embedder_->encode_tokens(texts, role, truncate, 1);
}

std::vector<TokenVectors> EmbeddingService::embed_tokens(std::vector<TokenInput> inputs,
                                                         ServiceClock::time_point deadline,
                                                         const std::function<bool()>& abandoned) {
  if (!tokens_) {
    throw Error(ErrorCode::kUnsupported, embedder_->info().folder.string() +
                                             " gives no token vectors: they come from ColBERT models and BGE-M3");
  }
  if (inputs.empty()) return {};
  auto ticket = tokens_->submit(std::move(inputs), deadline);
  return wait_for(ticket, deadline, abandoned);
}

std::vector<EncodedText> EmbeddingService::encode(std::span<const std::string_view> texts,
                                                  const EncodeOptions& options) const {
  return embedder_->encode(texts, options);
}

std::vector<EncodedText> EmbeddingService::encode_ids(std::span<const std::vector<std::uint32_t>> inputs,
                                                      bool truncate) const {
  const std::size_t vocabulary = embedder_->tokenizer().vocab_size();
  const std::size_t max_length = embedder_->info().max_length;
  std::vector<EncodedText> out;
  out.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto& ids = inputs[i];
    for (const std::uint32_t id : ids) {
      if (id >= vocabulary) {
        throw Error(ErrorCode::kInvalidInput,
                    "token id " + std::to_string(id) + " is outside the vocabulary of " + std::to_string(vocabulary),
                    i);
      }
    }
    if (ids.size() > max_length && !truncate) {
      throw Error(ErrorCode::kInvalidInput,
                  "has " + std::to_string(ids.size()) + " tokens, more than the model's maximum of " +
                      std::to_string(max_length) + " (ask for truncation to cut it)",
                  i);
    }
    const std::size_t n = std::min(ids.size(), max_length);
    EncodedText e;
    e.encoding.ids.assign(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(n));
    e.encoding.type_ids.assign(n, 0);
    e.encoding.attention_mask.assign(n, 1);
    e.encoding.special_tokens_mask.assign(n, 0);
    out.push_back(std::move(e));
  }
  return out;
}

Embeddings EmbeddingService::embed(std::vector<EncodedText> inputs, std::size_t dimensions, bool normalize,
                                   ServiceClock::time_point deadline, const std::function<bool()>& abandoned) {
  if (embedder_->info().output_kind != OutputKind::kDense) {
    throw Error(ErrorCode::kUnsupported,
                "model is a sparse (SPLADE) model: ask for sparse vectors (POST /embed_sparse)");
  }
  const std::size_t model_dimension = embedder_->info().model_dimension;
  const std::size_t keep = dimensions == 0 ? embedder_->info().dimension : dimensions;
  if (model_dimension != 0 && keep > model_dimension) {
    throw Error(ErrorCode::kInvalidArgument, "dimensions " + std::to_string(keep) + " exceeds the model's " +
                                                 std::to_string(model_dimension) + " dimensions");
  }
  Embeddings result;
  result.rows = inputs.size();
  result.dimension = keep;
  if (inputs.empty()) return result;
  auto ticket = scheduler_->submit(std::move(inputs), deadline);
  const std::vector<std::vector<float>> pooled = wait_for(ticket, deadline, abandoned);
  result.data.resize(result.rows * keep);
  for (std::size_t i = 0; i < pooled.size(); ++i) {
    Embedder::finish(pooled[i], keep, normalize, result.data.data() + i * keep);
  }
  return result;
}

std::vector<SparseVector> EmbeddingService::embed_sparse(std::vector<EncodedText> inputs, const SparseOptions& options,
                                                         ServiceClock::time_point deadline,
                                                         const std::function<bool()>& abandoned) {
  if (lexical_) {
    if (inputs.empty()) return {};
    auto ticket = lexical_->submit(std::move(inputs), deadline);
    std::vector<SparseVector> result = wait_for(ticket, deadline, abandoned);
    for (SparseVector& v : result) Embedder::prune(v, options);
    return result;
  }
  if (embedder_->info().output_kind != OutputKind::kSparse) {
    throw Error(ErrorCode::kUnsupported, "model is a dense embedding model: sparse vectors come from SPLADE models");
  }
  if (inputs.empty()) return {};
  auto ticket = scheduler_->submit(std::move(inputs), deadline);
  const std::vector<std::vector<float>> pooled = wait_for(ticket, deadline, abandoned);
  std::vector<SparseVector> result;
  result.reserve(pooled.size());
  for (const auto& row : pooled) result.push_back(Embedder::sparsify(row, options));
  return result;
}

RerankService::RerankService(std::shared_ptr<const Reranker> reranker, const SchedulerOptions& options,
                             std::function<void(const BatchReport&)> observer)
    : reranker_(std::move(reranker)) {
  // A ColBERT model's scores come from its token vectors, queued by an EmbeddingService.
  if (reranker_->is_late_interaction()) return;
  scheduler_ = std::make_unique<BatchScheduler<Encoding, std::vector<float>>>(
      options,
      [model = reranker_.get()](std::span<const Encoding* const> pairs) {
        return split_rows(model->run_batch(pairs), pairs.size());
      },
      [](const Encoding& pair) { return pair.size(); }, std::move(observer));
}

BatchScheduler<Encoding, std::vector<float>>& RerankService::pair_scheduler() {
  if (!scheduler_) {
    throw Error(ErrorCode::kUnsupported, reranker_->info().folder.string() +
                                             " is a late-interaction (ColBERT) model: it scores documents by MaxSim "
                                             "of token vectors, not (query, document) pairs");
  }
  return *scheduler_;
}

std::vector<Encoding> RerankService::encode(std::string_view query, std::span<const std::string_view> documents,
                                            bool truncate) const {
  // One thread: the server tokenizes many requests at once on its own threads.
  return reranker_->encode(query, documents, truncate, 1);
}

std::vector<float> RerankService::score(std::vector<Encoding> pairs, bool raw, ServiceClock::time_point deadline,
                                        const std::function<bool()>& abandoned) {
  if (pairs.empty()) return {};
  auto ticket = pair_scheduler().submit(std::move(pairs), deadline);
  const std::vector<std::vector<float>> logits = wait_for(ticket, deadline, abandoned);
  std::vector<float> scores(logits.size());
  for (std::size_t i = 0; i < logits.size(); ++i) scores[i] = reranker_->score_from_logits(logits[i], raw);
  return scores;
}

std::vector<std::vector<float>> RerankService::classify(std::vector<Encoding> inputs, bool raw,
                                                        ServiceClock::time_point deadline,
                                                        const std::function<bool()>& abandoned) {
  if (inputs.empty()) return {};
  auto ticket = pair_scheduler().submit(std::move(inputs), deadline);
  std::vector<std::vector<float>> rows = wait_for(ticket, deadline, abandoned);
  if (!raw) {
    for (auto& row : rows) row = reranker_->label_scores(row);
  }
  return rows;
}

}  // namespace sieve
