#include "model/json_file.hpp"
#include "model/modules/module.hpp"
#include "sieve/error.hpp"

namespace sieve::model {
namespace {

// sentence-transformers' Transformer: the ONNX graph, fed by tokenizer.json.
// Its configuration (sentence_bert_config.json) is checked for settings
// that would change what the graph is given.
class TransformerModule final : public Module {
 public:
  using Module::Module;
  [[nodiscard]] ModuleRole role() const noexcept override { return ModuleRole::kTransformer; }
  [[nodiscard]] std::string describe() const override { return "Transformer (the ONNX graph)"; }
};

}  // namespace

std::shared_ptr<const Module> make_transformer_module(const ModuleSpec& spec) {
  const auto file = spec.folder / "sentence_bert_config.json";
  if (const auto doc = read_json_file(file)) {
    if (bool_field(*doc, "do_lower_case", file).value_or(false)) {
      throw Error(ErrorCode::kUnsupported,
                  module_where(spec) + ": do_lower_case is true in " + file.string() +
                      ", and Sieve tokenizes exactly as tokenizer.json says; add a Lowercase normalizer to "
                      "tokenizer.json and set do_lower_case to false");
    }
    if (const auto task = string_field(*doc, "transformer_task", file); task && *task != "feature-extraction") {
      throw Error(ErrorCode::kUnsupported, module_where(spec) + ": transformer_task is \"" + *task +
                                               "\"; Sieve embeds with feature-extraction transformers only");
    }
  }
  return std::make_shared<const TransformerModule>(spec);
}

}  // namespace sieve::model
