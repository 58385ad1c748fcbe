#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace sieve::model {

// A causal language model used as a reranker (the Qwen3-Reranker kind):
// relevance is the probability of the "yes" token against "no" after the
// model's prompt. `sieve-export export --task llm-reranker` writes this
// description as llm_reranker.json beside a graph whose "logits" output is
// [batch, 2]: the "no" and "yes" logits at each row's last token.
struct LlmRerankerConfig {
  std::string prefix;         // tokens before the query and document, as the model was trained
  std::string suffix;         // tokens after them, ending where the answer starts
  std::string template_text;  // with {instruction}, {query} and {document}
  std::string instruction;
  std::string yes_token;
  std::string no_token;
  std::optional<std::size_t> max_length;  // the model card's recommended limit
};

inline constexpr const char* kLlmRerankerFile = "llm_reranker.json";

// The folder's llm_reranker.json; nullopt without one. A file missing a
// field, or a template without {query} and {document}, is an error naming it.
std::optional<LlmRerankerConfig> read_llm_reranker(const std::filesystem::path& folder);

// The template with its placeholders filled in (each once, left to right).
std::string fill_llm_template(const LlmRerankerConfig& config, std::string_view query, std::string_view document);

}  // namespace sieve::model
