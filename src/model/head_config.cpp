#include "model/head_config.hpp"

#include <nlohmann/json.hpp>

#include <charconv>

#include "model/json_file.hpp"
#include "sieve/error.hpp"

namespace sieve::model {
namespace {

// sentence-transformers stores the activation as a class path: under
// "sentence_transformers": {"activation_fn": ...} since v4, under
// "sbert_ce_default_activation_function" before. CrossEncoder instantiates
// it; the torch classes below are the ones it can be mirrored for.
std::optional<ScoreActivation> activation_from_class(std::string_view path) {
  const auto last = path.rfind('.');
  const std::string_view cls = last == std::string_view::npos ? path : path.substr(last + 1);
  if (cls == "Sigmoid") return ScoreActivation::kSigmoid;
  if (cls == "Identity") return ScoreActivation::kNone;
  if (cls == "Softmax") return ScoreActivation::kSoftmax;
  return std::nullopt;
}

}  // namespace

HeadConfig read_head_config(const std::filesystem::path& file) {
  HeadConfig head;
  const std::optional<nlohmann::json> config = read_json_file(file);
  if (!config) return head;
  const nlohmann::json& doc = *config;
  if (auto it = doc.find("architectures"); it != doc.end() && it->is_array()) {
    for (const auto& a : *it) {
      if (a.is_string()) head.architectures.push_back(a.get<std::string>());
    }
  }
  if (auto it = doc.find("num_labels"); it != doc.end() && !it->is_null()) {
    if (!it->is_number_integer() || it->get<std::int64_t>() <= 0) {
      throw Error(ErrorCode::kParse, file.string() + ": /num_labels: expected a positive integer");
    }
    head.num_labels = static_cast<std::size_t>(it->get<std::int64_t>());
  } else if (auto labels = doc.find("id2label"); labels != doc.end() && labels->is_object() && !labels->empty()) {
    // transformers' PretrainedConfig derives num_labels from id2label.
    head.num_labels = labels->size();
  }
  head.type_vocab_size = positive_int_field(doc, "type_vocab_size", file);
  if (auto labels = doc.find("id2label"); labels != doc.end() && labels->is_object()) {
    for (const auto& [key, value] : labels->items()) {
      std::size_t id = 0;
      const auto [end, error] = std::from_chars(key.data(), key.data() + key.size(), id);
      if (error != std::errc() || end != key.data() + key.size() || !value.is_string()) {
        throw Error(ErrorCode::kParse, file.string() + ": /id2label: expected label names under ids \"0\", \"1\", ...");
      }
      head.id2label[id] = value.get<std::string>();
    }
  }
  head.problem_type = string_field(doc, "problem_type", file).value_or("");
  std::string path;
  if (auto st = doc.find("sentence_transformers"); st != doc.end() && st->is_object()) {
    if (auto fn = st->find("activation_fn"); fn != st->end() && fn->is_string()) path = fn->get<std::string>();
  }
  if (path.empty()) {
    if (auto fn = doc.find("sbert_ce_default_activation_function"); fn != doc.end() && fn->is_string()) {
      path = fn->get<std::string>();
    }
  }
  if (!path.empty()) {
    head.activation = activation_from_class(path);
    if (!head.activation) {
      throw Error(ErrorCode::kUnsupported, file.string() + ": activation_fn \"" + path +
                                               "\" is not supported (Sigmoid, Identity, Softmax); choose one "
                                               "explicitly (e.g. raw scores)");
    }
  }
  return head;
}

}  // namespace sieve::model
