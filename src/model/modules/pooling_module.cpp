#include "model/modules/pooling_module.hpp"

#include "model/json_file.hpp"
#include "sieve/error.hpp"

namespace sieve::model {
namespace {

// The older configuration: a flag per mode, concatenated in this order.
constexpr std::pair<const char*, Pooling> kLegacyFlags[] = {
    {"pooling_mode_cls_token", Pooling::kCls},
    {"pooling_mode_max_tokens", Pooling::kMax},
    {"pooling_mode_mean_tokens", Pooling::kMean},
    {"pooling_mode_mean_sqrt_len_tokens", Pooling::kMeanSqrtLen},
    {"pooling_mode_weightedmean_tokens", Pooling::kWeightedMean},
    {"pooling_mode_lasttoken", Pooling::kLastToken},
};

Pooling parse_mode(const nlohmann::json& value, const std::string& where) {
  if (!value.is_string())
    throw Error(ErrorCode::kParse, where + ": /pooling_mode: expected a string or a list of them");
  try {
    return parse_pooling(value.get<std::string>());
  } catch (const Error& e) {
    throw Error(ErrorCode::kUnsupported, where + ": /pooling_mode: " + e.what());
  }
}

}  // namespace

PoolingModule::PoolingModule(ModuleSpec spec, std::vector<Pooling> modes, bool include_prompt,
                             std::optional<std::size_t> embedding_dimension)
    : Module(std::move(spec)),
      modes_(std::move(modes)),
      include_prompt_(include_prompt),
      embedding_dimension_(embedding_dimension) {}

std::string PoolingModule::describe() const {
  std::string text = "Pooling ";
  for (std::size_t i = 0; i < modes_.size(); ++i) {
    if (i != 0) text += '+';
    text += to_string(modes_[i]);
  }
  if (!include_prompt_) text += ", prompt left out";
  return text;
}

std::shared_ptr<const PoolingModule> read_pooling_module(const ModuleSpec& spec) {
  const auto file = spec.folder / "config.json";
  const auto doc = read_json_file(file);
  if (!doc)
    throw Error(ErrorCode::kNotFound, module_where(spec) + ": its configuration " + file.string() + " is missing");
  const std::string where = file.string();
  std::vector<Pooling> modes;
  if (const auto it = doc->find("pooling_mode"); it != doc->end() && !it->is_null()) {
    if (it->is_array()) {
      for (const auto& m : *it) modes.push_back(parse_mode(m, where));
      if (modes.empty()) throw Error(ErrorCode::kParse, where + ": /pooling_mode: the list is empty");
    } else {
      modes.push_back(parse_mode(*it, where));
    }
  } else {
    for (const auto& [key, mode] : kLegacyFlags) {
      if (bool_field(*doc, key, file).value_or(false)) modes.push_back(mode);
    }
    // sentence-transformers pools by mean when no flag is set.
    if (modes.empty()) modes.push_back(Pooling::kMean);
  }
  // sentence-transformers' include_prompt defaults to true.
  const bool include_prompt = bool_field(*doc, "include_prompt", file).value_or(true);
  auto dimension = positive_int_field(*doc, "embedding_dimension", file);
  if (!dimension) dimension = positive_int_field(*doc, "word_embedding_dimension", file);
  return std::make_shared<const PoolingModule>(spec, std::move(modes), include_prompt, dimension);
}

std::shared_ptr<const Module> make_pooling_module(const ModuleSpec& spec) {
  return read_pooling_module(spec);
}

}  // namespace sieve::model
