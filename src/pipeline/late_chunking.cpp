#include "pipeline/late_chunking.hpp"

#include <algorithm>

#include "pipeline/pooling.hpp"
#include "sieve/error.hpp"

namespace sieve::pipeline {

JoinedChunks join_chunks(std::span<const std::string_view> chunks, std::string_view separator) {
  JoinedChunks joined;
  joined.spans.reserve(chunks.size());
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    if (i > 0) joined.document.append(separator);
    const std::size_t begin = joined.document.size();
    joined.document.append(chunks[i]);
    joined.spans.push_back({begin, joined.document.size()});
  }
  return joined;
}

WindowPlan plan_windows(const Encoding& document, std::size_t max_length, std::optional<std::size_t> asked) {
  WindowPlan plan;
  const std::size_t n = document.size();
  const auto special = [&](std::size_t i) { return document.special_tokens_mask[i] != 0; };
  while (plan.leading < n && special(plan.leading)) ++plan.leading;
  while (plan.trailing < n - plan.leading && special(n - 1 - plan.trailing)) ++plan.trailing;
  const std::size_t content = n - plan.leading - plan.trailing;
  const std::size_t specials = plan.leading + plan.trailing;
  if (max_length <= specials) {
    throw Error(ErrorCode::kInvalidArgument, "a maximum length of " + std::to_string(max_length) +
                                                 " tokens leaves no room beside the model's special tokens");
  }
  const std::size_t width = max_length - specials;
  const std::size_t overlap = asked.value_or(width / 4);
  if (overlap > width / 2) {
    throw Error(ErrorCode::kInvalidArgument, "an overlap of " + std::to_string(overlap) +
                                                 " tokens must be at most half the window's " + std::to_string(width) +
                                                 " tokens of text");
  }
  const std::size_t step = width - overlap;
  for (std::size_t first = 0;; first += step) {
    plan.windows.push_back({first, std::min(width, content - first)});
    if (first + width >= content) break;
  }
  plan.owner.resize(content);
  for (std::size_t token = 0; token < content; ++token) {
    std::size_t best = 0;
    std::size_t best_context = 0;
    // The windows holding the token: from the first that reaches it to the last that starts at or before it.
    const std::size_t from = token >= width ? (token - width) / step : 0;
    const std::size_t to = std::min(plan.windows.size(), token / step + 1);
    for (std::size_t w = from; w < to; ++w) {
      const Window& window = plan.windows[w];
      if (token < window.first || token >= window.first + window.count) continue;
      // Tokens of context on the nearer side; the document's own start and end count as full context. Ties go to
      // the earlier window.
      const std::size_t before = window.first == 0 ? content : token - window.first;
      const std::size_t after =
          window.first + window.count == content ? content : window.first + window.count - 1 - token;
      const std::size_t context = std::min(before, after);
      if (context > best_context) {
        best = w;
        best_context = context;
      }
    }
    plan.owner[token] = best;
  }
  return plan;
}

Encoding window_encoding(const Encoding& document, const WindowPlan& plan, const Window& window) {
  const std::size_t n = document.size();
  Encoding out;
  const auto take = [&](std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i) {
      out.ids.push_back(document.ids[i]);
      out.type_ids.push_back(document.type_ids[i]);
      out.offsets.push_back(document.offsets[i]);
      out.special_tokens_mask.push_back(document.special_tokens_mask[i]);
      out.attention_mask.push_back(document.attention_mask[i]);
    }
  };
  take(0, plan.leading);
  take(plan.leading + window.first, plan.leading + window.first + window.count);
  take(n - plan.trailing, n);
  return out;
}

std::vector<std::vector<std::size_t>> chunk_tokens(const Encoding& document, const WindowPlan& plan,
                                                   std::span<const ChunkSpan> spans) {
  // The last byte of each content token, in text order (a token without bytes takes its predecessor's and is
  // left out).
  const std::size_t content = plan.owner.size();
  std::vector<std::size_t> last(content);
  std::vector<bool> empty(content);
  std::size_t previous = 0;
  for (std::size_t token = 0; token < content; ++token) {
    const Offsets& o = document.offsets[plan.leading + token];
    empty[token] = o.second <= o.first;
    if (!empty[token]) previous = std::max<std::size_t>(previous, o.second - 1);
    last[token] = previous;
  }
  std::vector<std::vector<std::size_t>> tokens(spans.size());
  for (std::size_t chunk = 0; chunk < spans.size(); ++chunk) {
    const ChunkSpan span = spans[chunk];
    for (auto it = std::lower_bound(last.begin(), last.end(), span.begin); it != last.end() && *it < span.end; ++it) {
      const auto token = static_cast<std::size_t>(it - last.begin());
      if (!empty[token]) tokens[chunk].push_back(token);
    }
  }
  return tokens;
}

std::vector<float> pool_chunks(std::span<const float> states, std::size_t dim,
                               const std::vector<std::vector<std::size_t>>& tokens, const std::vector<Pooling>& modes) {
  const std::size_t width = dim * modes.size();
  std::vector<float> rows(tokens.size() * width);
  std::vector<float> gathered;
  std::vector<std::int64_t> mask;
  for (std::size_t chunk = 0; chunk < tokens.size(); ++chunk) {
    const std::vector<std::size_t>& own = tokens[chunk];
    gathered.resize(own.size() * dim);
    for (std::size_t i = 0; i < own.size(); ++i) {
      std::copy_n(states.begin() + static_cast<std::ptrdiff_t>(own[i] * dim), dim,
                  gathered.begin() + static_cast<std::ptrdiff_t>(i * dim));
    }
    mask.assign(own.size(), 1);
    for (std::size_t k = 0; k < modes.size(); ++k) {
      pool(gathered.data(), 1, own.size(), dim, mask.data(), modes[k], rows.data() + chunk * width + k * dim);
    }
  }
  return rows;
}

bool late_chunking_pools_by(Pooling mode) noexcept {
  return mode == Pooling::kMean || mode == Pooling::kMax || mode == Pooling::kMeanSqrtLen;
}

}  // namespace sieve::pipeline
