#include "model/llm_reranker.hpp"

#include "model/json_file.hpp"
#include "sieve/error.hpp"

namespace sieve::model {

std::optional<LlmRerankerConfig> read_llm_reranker(const std::filesystem::path& folder) {
  const auto file = folder / kLlmRerankerFile;
  const auto doc = read_json_file(file);
  if (!doc) return std::nullopt;
  const auto required = [&](const char* key) {
    auto value = string_field(*doc, key, file);
    if (!value) throw Error(ErrorCode::kParse, file.string() + ": /" + key + ": missing (a string)");
    return *value;
  };
  LlmRerankerConfig config;
  config.prefix = required("prefix");
  config.suffix = required("suffix");
  config.template_text = required("template");
  config.instruction = string_field(*doc, "instruction", file).value_or("");
  config.yes_token = required("yes_token");
  config.no_token = required("no_token");
  config.max_length = positive_int_field(*doc, "max_length", file);
  for (const char* placeholder : {"{query}", "{document}"}) {
    if (config.template_text.find(placeholder) == std::string::npos) {
      throw Error(ErrorCode::kParse, file.string() + ": /template: has no " + placeholder);
    }
  }
  return config;
}

std::string fill_llm_template(const LlmRerankerConfig& config, std::string_view query, std::string_view document) {
  // One pass: a query that itself contains "{document}" stays as typed.
  const std::string& t = config.template_text;
  std::string out;
  out.reserve(t.size() + query.size() + document.size() + config.instruction.size());
  std::size_t at = 0;
  while (at < t.size()) {
    const std::size_t open = t.find('{', at);
    if (open == std::string::npos) break;
    out.append(t, at, open - at);
    const auto starts = [&](std::string_view name) { return t.compare(open, name.size(), name) == 0; };
    if (starts("{instruction}")) {
      out += config.instruction;
      at = open + 13;
    } else if (starts("{query}")) {
      out += query;
      at = open + 7;
    } else if (starts("{document}")) {
      out += document;
      at = open + 10;
    } else {
      out.push_back('{');
      at = open + 1;
    }
  }
  if (at < t.size()) out.append(t, at);
  return out;
}

}  // namespace sieve::model
