#include <map>
#include <string_view>

#include "model/modules/module.hpp"
#include "sieve/error.hpp"

namespace sieve::model {
namespace {

using Factory = std::shared_ptr<const Module> (*)(const ModuleSpec&);

// sentence-transformers' own module classes that Sieve applies. Supporting a
// new one is a file in this folder and a line here.
const std::map<std::string, Factory, std::less<>>& factories() {
  static const std::map<std::string, Factory, std::less<>> table{
      {"Transformer", make_transformer_module},
      {"Pooling", make_pooling_module},
      {"Dense", make_dense_module},
      {"Normalize", make_normalize_module},
      {"LayerNorm", make_layer_norm_module},
      {"Dropout", make_dropout_module},
      {"MLMTransformer", make_transformer_module},
      {"SpladePooling", make_splade_pooling_module},
  };
  return table;
}

// What to tell a user whose folder has a module Sieve does not apply.
std::string advice(std::string_view class_name) {
  if (class_name == "StaticEmbedding" || class_name == "WordEmbeddings" || class_name == "BoW" ||
      class_name == "LSTM" || class_name == "CNN") {
    return "this is not a transformer model, which is what Sieve runs";
  }
  if (class_name == "WordWeights") return "weighing tokens by a word list before pooling is not supported";
  if (class_name == "Router" || class_name == "Asym") {
    return "models that route queries and documents through different modules are not supported";
  }
  if (class_name == "SparseStaticEmbedding" || class_name == "SparseAutoEncoder") {
    return "of sparse encoders Sieve runs SPLADE models (a fill-mask Transformer and SpladePooling)";
  }
  if (class_name == "WeightedLayerPooling") return "pooling over several layers' states is not supported";
  if (class_name == "ColBERT" || class_name == "Dense") {
    return "of late-interaction models Sieve runs PyLate's ColBERT layout (a Transformer and "
           "pylate.models.Dense.Dense)";
  }
  return "Sieve applies Transformer, Pooling, Dense, LayerNorm, Normalize, Dropout and SpladePooling; "
         "remove the module from modules.json only if the model's vectors do not depend on it";
}

}  // namespace

std::string module_where(const ModuleSpec& spec) {
  return spec.modules_file.string() + ": module " + std::to_string(spec.index) + " (" +
         (spec.path.empty() ? std::string("the model folder") : spec.path) + ", " + spec.type + ")";
}

std::string Module::where() const {
  return module_where(spec_);
}

std::shared_ptr<const Module> make_module(const ModuleSpec& spec) {
  // A custom class that happens to share a name with a built-in one is code
  // Sieve cannot run: only sentence-transformers' own classes are matched.
  const bool builtin = spec.type.starts_with("sentence_transformers.");
  if (builtin) {
    if (const auto it = factories().find(spec.class_name); it != factories().end()) return it->second(spec);
  }
  // PyLate's projection of ColBERT models: sentence-transformers' Dense on
  // each token's state (its only other option, a residual, is refused there).
  if (spec.type == kPylateDense) return make_dense_module(spec);
  throw Error(ErrorCode::kUnsupported,
              module_where(spec) + ": " +
                  (builtin ? "Sieve does not apply this module type" : "a custom module (code Sieve cannot run)") +
                  "; " + advice(spec.class_name));
}

}  // namespace sieve::model
