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
  TransformerModule(ModuleSpec spec, std::string task) : Module(std::move(spec)), task_(std::move(task)) {}
  [[nodiscard]] ModuleRole role() const noexcept override { return ModuleRole::kTransformer; }
  [[nodiscard]] std::string describe() const override {
    return task_ == "fill-mask" ? "Transformer, fill-mask (the ONNX graph)" : "Transformer (the ONNX graph)";
  }
  [[nodiscard]] std::string transformer_task() const override { return task_; }

 private:
  std::string task_;
};

}  // namespace

std::shared_ptr<const Module> make_transformer_module(const ModuleSpec& spec) {
  // sentence-transformers' older MLMTransformer is a fill-mask Transformer.
  std::string task = spec.class_name == "MLMTransformer" ? "fill-mask" : "feature-extraction";
  const auto file = spec.folder / "sentence_bert_config.json";
  if (const auto doc = read_json_file(file)) {
    if (bool_field(*doc, "do_lower_case", file).value_or(false)) {
      throw Error(ErrorCode::kUnsupported,
                  module_where(spec) + ": do_lower_case is true in " + file.string() +
                      ", and Sieve tokenizes exactly as tokenizer.json says; add a Lowercase normalizer to "
                      "tokenizer.json and set do_lower_case to false");
    }
    if (const auto named = string_field(*doc, "transformer_task", file)) {
      if (*named != "feature-extraction" && *named != "fill-mask") {
        throw Error(ErrorCode::kUnsupported, module_where(spec) + ": transformer_task is \"" + *named +
                                                 "\"; Sieve runs feature-extraction transformers (embeddings) and "
                                                 "fill-mask ones followed by SpladePooling (sparse embeddings)");
      }
      task = *named;
    }
  }
  return std::make_shared<const TransformerModule>(spec, std::move(task));
}

}  // namespace sieve::model
