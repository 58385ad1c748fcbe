#include <algorithm>
#include <chrono>

#include "logging.hpp"
#include "pipeline/batching.hpp"
#include "pipeline/model_inputs.hpp"
#include "pipeline/pooling.hpp"
#include "registry/model_folder.hpp"
#include "runtime/environment.hpp"
#include "runtime/session.hpp"
#include "sieve/embedder.hpp"
#include "sieve/error.hpp"

namespace sieve {
namespace {

using pipeline::shape_text;
using pipeline::type_name;

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Picks the output to read: an already pooled sentence embedding when the
// export has one, otherwise the token states.
std::size_t choose_output(const std::vector<runtime::TensorSpec>& outputs, const std::filesystem::path& file) {
  const auto find = [&](auto predicate) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      if (outputs[i].type == runtime::ElementType::kFloat32 && predicate(outputs[i])) return i;
    }
    return std::nullopt;
  };
  if (auto i = find([](const auto& o) { return o.name == "sentence_embedding" && o.shape.size() == 2; })) return *i;
  for (const char* name : {"last_hidden_state", "token_embeddings"}) {
    if (auto i = find([&](const auto& o) { return o.name == name && o.shape.size() == 3; })) return *i;
  }
  if (auto i = find([](const auto& o) { return o.shape.size() == 3; })) return *i;
  if (auto i = find([](const auto& o) { return o.shape.size() == 2; })) return *i;
  std::string list;
  for (const auto& o : outputs) list += " " + o.name + ":" + type_name(o.type) + shape_text(o.shape);
  throw Error(ErrorCode::kUnsupported,
              file.string() + ": no float32 output of rank 2 (pooled) or rank 3 (token states); outputs:" + list);
}

// The prompt put before every input, chosen as sentence-transformers'
// encode() chooses it: an explicit prompt, else the named one, else the
// folder's default.
std::string choose_prompt(const EmbedderOptions& options, const registry::ModelFolder& f) {
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
    std::string known;
    for (const auto& [key, text] : f.prompts) known += (known.empty() ? "" : ", ") + key;
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
  registry::ModelFolder folder;
  Tokenizer tokenizer;
  runtime::Session session;
  ModelInfo info;
  std::size_t input_ids = 0;
  std::size_t attention_mask = 0;
  std::optional<std::size_t> token_type_ids;
  std::size_t output = 0;
  std::size_t batch_size = 32;
  std::optional<std::size_t> dimensions;

  Impl(registry::ModelFolder f, Tokenizer t, runtime::Session s)
      : folder(std::move(f)), tokenizer(std::move(t)), session(std::move(s)) {}
};

Embedder::Embedder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Embedder::Embedder(Embedder&&) noexcept = default;
Embedder& Embedder::operator=(Embedder&&) noexcept = default;
Embedder::~Embedder() = default;

Embedder Embedder::load(const std::filesystem::path& folder_path, const EmbedderOptions& options) {
  if (options.batch_size == 0) throw Error(ErrorCode::kInvalidArgument, "batch size must be at least 1");
  auto folder = registry::read_model_folder(folder_path);
  auto tokenizer = Tokenizer::from_file(folder.tokenizer_file);
  runtime::Session session(folder.onnx_file, options.runtime);
  auto impl = std::make_unique<Impl>(std::move(folder), std::move(tokenizer), std::move(session));
  const auto& f = impl->folder;
  const auto& onnx = f.onnx_file;

  const pipeline::InputSlots slots = pipeline::find_encoder_inputs(impl->session.inputs(), onnx);
  impl->input_ids = slots.input_ids;
  impl->attention_mask = slots.attention_mask;
  impl->token_type_ids = slots.token_type_ids;
  impl->output = choose_output(impl->session.outputs(), onnx);
  const auto& out = impl->session.outputs()[impl->output];

  ModelInfo& info = impl->info;
  info.folder = f.root;
  info.onnx_file = onnx;
  for (const auto& in : impl->session.inputs()) info.inputs.push_back({in.name, type_name(in.type), in.shape});
  for (const auto& o : impl->session.outputs()) info.outputs.push_back({o.name, type_name(o.type), o.shape});
  info.output = out.name;
  info.pooled_by_model = out.shape.size() == 2;
  info.pooling = options.pooling.value_or(f.pooling.value_or(Pooling::kMean));
  // Without sentence-transformers files there is no Normalize module to
  // follow; normalized vectors are what search users almost always want.
  info.normalize = options.normalize.value_or(f.has_sentence_transformers_files ? f.has_normalize_module : true);
  const std::int64_t last_dim = out.shape.back();
  info.model_dimension = last_dim > 0 ? static_cast<std::size_t>(last_dim) : f.hidden_size.value_or(0);
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
  info.prompts = f.prompts;
  info.default_prompt_name = f.default_prompt_name;
  info.similarity_fn_name = f.similarity_fn_name.value_or("cosine");
  info.prompt = choose_prompt(options, f);

  std::size_t max_length = options.max_length.value_or(
      f.max_seq_length.value_or(f.model_max_length.value_or(f.max_position_embeddings.value_or(512))));
  if (f.max_position_embeddings && max_length > *f.max_position_embeddings) {
    if (options.max_length) {
      throw Error(ErrorCode::kInvalidArgument, "max length " + std::to_string(max_length) + " exceeds the model's " +
                                                   std::to_string(*f.max_position_embeddings) + " positions");
    }
    max_length = *f.max_position_embeddings;
  }
  const std::size_t specials = impl->tokenizer.num_special_tokens_to_add(false);
  if (max_length <= specials) {
    throw Error(ErrorCode::kInvalidArgument, "max length " + std::to_string(max_length) + " leaves no room for text");
  }
  info.max_length = max_length;
  info.providers = impl->session.providers();
  info.intra_op_threads = impl->session.intra_op_threads();
  info.onnxruntime_version = runtime::onnxruntime_version();

  // The pipeline pads per batch itself; the file's own padding (often a
  // fixed 128) would only waste compute, and truncation follows the model.
  impl->tokenizer.set_padding(std::nullopt);
  impl->tokenizer.set_truncation(TruncationParams{max_length, TruncationStrategy::kLongestFirst, 0, Direction::kRight});
  impl->tokenizer.set_invalid_utf8(options.invalid_utf8);
  impl->batch_size = options.batch_size;
  impl->dimensions = options.dimensions;

  // Models such as INSTRUCTOR pool without the prompt. sentence-transformers
  // counts the prompt's tokens with the special tokens the tokenizer adds,
  // less a trailing special token (the [SEP] that the text's encoding has
  // after the text, not after the prompt); that count, from the start, is
  // masked out of pooling.
  if (!info.prompt.empty() && !f.pooling_include_prompt) {
    if (info.pooled_by_model) {
      throw Error(ErrorCode::kUnsupported,
                  "the model pools inside the ONNX graph, so its prompt (include_prompt "
                  "false in the pooling configuration) cannot be left out of pooling");
    }
    const Encoding e = impl->tokenizer.encode(info.prompt, true);
    std::size_t n = e.size();
    if (n > 0 && e.special_tokens_mask[n - 1] != 0) --n;
    info.prompt_length = n;
  }
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

Embeddings Embedder::embed(std::span<const std::string_view> texts, EmbedTimings* timings) const {
  const Impl& m = *impl_;
  EmbedTimings local;
  EmbedTimings& t = timings != nullptr ? *timings : local;

  auto start = Clock::now();
  // sentence-transformers prepends the prompt to the text before tokenizing.
  std::vector<std::string> prompted;
  std::vector<std::string_view> prompted_views;
  if (!m.info.prompt.empty()) {
    prompted.reserve(texts.size());
    prompted_views.reserve(texts.size());
    for (const std::string_view text : texts) {
      prompted.push_back(m.info.prompt);
      prompted.back().append(text);
    }
    prompted_views.assign(prompted.begin(), prompted.end());
    texts = prompted_views;
  }
  // Every core tokenizes (the ORT runs that follow use them all anyway);
  // an error names the input index.
  const std::vector<Encoding> encodings = m.tokenizer.encode_each(texts, true, 0);
  std::vector<std::size_t> lengths;
  lengths.reserve(texts.size());
  for (const Encoding& e : encodings) {
    lengths.push_back(e.size());
    t.tokens += e.size();
  }
  t.tokenize_seconds += seconds_since(start);

  Embeddings result;
  result.rows = texts.size();
  result.dimension = m.info.dimension;
  if (texts.empty()) return result;

  const auto plan = pipeline::plan_batches(lengths, m.batch_size);
  std::vector<std::int64_t> ids;
  std::vector<std::int64_t> mask;
  std::vector<std::int64_t> types;
  std::vector<float> pooled;
  std::vector<std::int64_t> pool_mask;
  const std::size_t prompt_length = m.info.prompt_length;
  // Last-token pooling picks a position that the prompt mask does not move.
  const bool mask_prompt = prompt_length > 0 && m.info.pooling != Pooling::kLastToken;
  for (const auto& [begin, end] : plan.batches) {
    start = Clock::now();
    const std::size_t batch = end - begin;
    std::size_t seq = 0;
    for (std::size_t k = begin; k < end; ++k) seq = std::max(seq, lengths[plan.order[k]]);
    seq = std::max<std::size_t>(seq, 1);
    ids.assign(batch * seq, 0);
    mask.assign(batch * seq, 0);
    if (m.token_type_ids) types.assign(batch * seq, 0);
    for (std::size_t row = 0; row < batch; ++row) {
      const Encoding& e = encodings[plan.order[begin + row]];
      std::copy(e.ids.begin(), e.ids.end(), ids.begin() + static_cast<std::ptrdiff_t>(row * seq));
      std::fill_n(mask.begin() + static_cast<std::ptrdiff_t>(row * seq), e.size(), 1);
      if (m.token_type_ids)
        std::copy(e.type_ids.begin(), e.type_ids.end(), types.begin() + static_cast<std::ptrdiff_t>(row * seq));
    }
    std::vector<runtime::Int64Input> inputs;
    const std::vector<std::int64_t> shape = {static_cast<std::int64_t>(batch), static_cast<std::int64_t>(seq)};
    inputs.push_back({m.input_ids, ids.data(), shape});
    inputs.push_back({m.attention_mask, mask.data(), shape});
    if (m.token_type_ids) inputs.push_back({*m.token_type_ids, types.data(), shape});
    t.padded_tokens += batch * seq;
    t.prepare_seconds += seconds_since(start);

    start = Clock::now();
    const auto output = m.session.run(inputs, m.output);
    t.run_seconds += seconds_since(start);

    start = Clock::now();
    const auto& s = output.shape();
    const std::size_t dim = s.empty() ? 0 : static_cast<std::size_t>(s.back());
    const bool shape_ok = m.info.pooled_by_model ? (s.size() == 2 && s[0] == shape[0])
                                                 : (s.size() == 3 && s[0] == shape[0] && s[1] == shape[1]);
    if (!shape_ok || dim == 0 || (m.info.model_dimension != 0 && dim != m.info.model_dimension)) {
      throw Error(ErrorCode::kRuntime, "model output \"" + m.info.output + "\" has shape " + shape_text(s) +
                                           " for an input of shape " + shape_text(shape));
    }
    // Matryoshka truncation keeps the leading dimensions; sentence-transformers
    // truncates the pooled vector and then normalizes what is left.
    const std::size_t keep = m.dimensions ? *m.dimensions : dim;
    if (keep > dim) {
      throw Error(ErrorCode::kInvalidArgument,
                  "dimensions " + std::to_string(keep) + " exceeds the model's " + std::to_string(dim) + " dimensions");
    }
    if (result.data.empty()) {
      result.dimension = keep;
      result.data.resize(result.rows * keep);
    }
    const float* rows = output.data();
    if (!m.info.pooled_by_model) {
      const std::int64_t* pooling_mask = mask.data();
      if (mask_prompt) {
        pool_mask = mask;
        for (std::size_t row = 0; row < batch; ++row) {
          std::fill_n(pool_mask.begin() + static_cast<std::ptrdiff_t>(row * seq), std::min(prompt_length, seq), 0);
        }
        pooling_mask = pool_mask.data();
      }
      pooled.resize(batch * dim);
      pipeline::pool(output.data(), batch, seq, dim, pooling_mask, m.info.pooling, pooled.data());
      if (mask_prompt && m.info.pooling == Pooling::kCls) {
        // sentence-transformers (6.x) takes the first position the prompt
        // mask leaves attended (argmax of the mask), not position 0.
        for (std::size_t row = 0; row < batch; ++row) {
          const std::int64_t* rm = pooling_mask + row * seq;
          const auto first =
              static_cast<std::size_t>(std::find_if(rm, rm + seq, [](std::int64_t v) { return v != 0; }) - rm);
          const float* state = output.data() + (row * seq + (first == seq ? 0 : first)) * dim;
          std::copy(state, state + dim, pooled.begin() + static_cast<std::ptrdiff_t>(row * dim));
        }
      }
      rows = pooled.data();
    }
    for (std::size_t row = 0; row < batch; ++row) {
      float* target = result.data.data() + plan.order[begin + row] * keep;
      std::copy(rows + row * dim, rows + row * dim + keep, target);
      if (m.info.normalize) pipeline::l2_normalize(target, keep);
    }
    t.pool_seconds += seconds_since(start);
    ++t.batches;
  }
  return result;
}

}  // namespace sieve
