#include <nlohmann/json.hpp>

#include "json_depth.hpp"
#include "sieve/error.hpp"
#include "tokenizer/core/component_registry.hpp"
#include "tokenizer/core/json_view.hpp"
#include "tokenizer/core/tokenizer_impl.hpp"

namespace sieve {
namespace {

using tokenizer::ComponentRegistry;
using tokenizer::JsonView;

Direction parse_direction(const JsonView& node) {
  const std::string value = node.as_string();
  if (value == "Right") return Direction::kRight;
  if (value == "Left") return Direction::kLeft;
  node.fail("expected \"Left\" or \"Right\", got \"" + value + "\"");
}

TruncationParams parse_truncation(const JsonView& node) {
  node.expect_object();
  TruncationParams p;
  p.max_length = node.at("max_length").as_uint();
  p.stride = node.get_uint("stride", 0);
  if (auto strategy = node.find("strategy")) {
    const std::string s = strategy->as_string();
    if (s == "LongestFirst") {
      p.strategy = TruncationStrategy::kLongestFirst;
    } else if (s == "OnlyFirst") {
      p.strategy = TruncationStrategy::kOnlyFirst;
    } else if (s == "OnlySecond") {
      p.strategy = TruncationStrategy::kOnlySecond;
    } else {
      strategy->fail("unknown truncation strategy \"" + s + "\"");
    }
  }
  if (auto direction = node.find("direction")) p.direction = parse_direction(*direction);
  return p;
}

PaddingParams parse_padding(const JsonView& node) {
  node.expect_object();
  PaddingParams p;
  if (auto strategy = node.find("strategy")) {
    if (strategy->raw().is_string()) {
      if (strategy->as_string() != "BatchLongest") strategy->fail("unknown padding strategy");
    } else if (auto fixed = strategy->find("Fixed")) {
      p.fixed_length = fixed->as_uint();
    } else {
      strategy->fail("expected \"BatchLongest\" or {\"Fixed\": n}");
    }
  }
  if (auto direction = node.find("direction")) p.direction = parse_direction(*direction);
  p.pad_to_multiple_of = node.get_uint("pad_to_multiple_of", 0);
  p.pad_id = static_cast<std::uint32_t>(node.get_uint("pad_id", 0));
  p.pad_type_id = static_cast<std::uint32_t>(node.get_uint("pad_type_id", 0));
  p.pad_token = node.get_string("pad_token", "[PAD]");
  return p;
}

// Older tokenizer.json files leave the model's "type" out; Hugging Face
// then recognises the model by its fields.
std::string model_type(const JsonView& node) {
  node.expect_object();
  if (node.has("type")) return node.at("type").as_string();
  if (node.has("merges")) return "BPE";
  if (node.has("unk_id") || (node.has("vocab") && node.at("vocab").raw().is_array())) return "Unigram";
  if (node.has("max_input_chars_per_word") || node.has("continuing_subword_prefix")) return "WordPiece";
  if (node.has("vocab")) return "WordLevel";
  node.fail("cannot tell the model type: no \"type\" field and no recognisable fields");
}

}  // namespace

std::unique_ptr<TokenizerImpl> load_tokenizer_json(std::string_view json, std::string_view origin) {
  nlohmann::json document;
  try {
    // Nested no deeper than Hugging Face (serde_json) allows, before nested
    // components could recurse that deep.
    document = nlohmann::json::parse(json.begin(), json.end(), json_depth_limit(std::string(origin)));
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(ErrorCode::kParse,
                std::string(origin) + ": invalid JSON at byte " + std::to_string(e.byte) + ": " + e.what());
  } catch (const nlohmann::json::exception& e) {
    // For instance a number too large for a double (out_of_range).
    throw Error(ErrorCode::kParse, std::string(origin) + ": invalid JSON: " + e.what());
  }
  const JsonView root(document, std::string(origin));
  root.expect_object();
  const auto& registry = ComponentRegistry::builtin();
  auto impl = std::make_unique<TokenizerImpl>();
  if (auto n = root.find("normalizer")) impl->normalizer = registry.normalizers.create(*n, "normalizer");
  if (auto p = root.find("pre_tokenizer")) impl->pre_tokenizer = registry.pre_tokenizers.create(*p, "pre-tokenizer");
  const JsonView model = root.at("model");
  impl->model = registry.models.create_as(model, model_type(model), "model");
  if (auto p = root.find("post_processor")) impl->post_processor = registry.processors.create(*p, "post-processor");
  if (auto d = root.find("decoder")) impl->decoder = registry.decoders.create(*d, "decoder");
  if (auto t = root.find("truncation")) impl->truncation = parse_truncation(*t);
  if (auto p = root.find("padding")) impl->padding = parse_padding(*p);
  if (auto added = root.find("added_tokens")) {
    impl->added = tokenizer::AddedVocabulary(tokenizer::AddedVocabulary::parse(*added), impl->normalizer.get());
  }
  return impl;
}

}  // namespace sieve
