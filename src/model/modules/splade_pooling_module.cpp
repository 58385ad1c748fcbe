#include "model/modules/splade_pooling_module.hpp"

#include "model/json_file.hpp"
#include "sieve/error.hpp"

namespace sieve::model {

std::string SpladePoolingModule::describe() const {
  return std::string("SpladePooling ") + (pooling_.sum ? "sum" : "max") + ", " +
         (pooling_.double_log ? "log1p_relu" : "relu");
}

std::shared_ptr<const Module> make_splade_pooling_module(const ModuleSpec& spec) {
  const auto file = spec.folder / "config.json";
  const auto doc = read_json_file(file);
  SparsePooling pooling;
  std::optional<std::size_t> dimension;
  // sentence-transformers' defaults: max pooling of log1p(relu(x)).
  if (doc) {
    const std::string strategy = string_field(*doc, "pooling_strategy", file).value_or("max");
    if (strategy != "max" && strategy != "sum") {
      throw Error(ErrorCode::kUnsupported, module_where(spec) + ": " + file.string() + ": pooling_strategy \"" +
                                               strategy + "\" is neither \"max\" nor \"sum\"");
    }
    pooling.sum = strategy == "sum";
    const std::string activation = string_field(*doc, "activation_function", file).value_or("relu");
    if (activation != "relu" && activation != "log1p_relu") {
      throw Error(ErrorCode::kUnsupported, module_where(spec) + ": " + file.string() + ": activation_function \"" +
                                               activation + "\" is neither \"relu\" nor \"log1p_relu\"");
    }
    pooling.double_log = activation == "log1p_relu";
    if (const auto chunk = doc->find("chunk_size");
        chunk != doc->end() && !chunk->is_null() && !chunk->is_number_integer()) {
      throw Error(ErrorCode::kParse, file.string() + ": /chunk_size: expected an integer");
    }
    dimension = positive_int_field(*doc, "embedding_dimension", file);
    if (!dimension) dimension = positive_int_field(*doc, "word_embedding_dimension", file);
  }
  return std::make_shared<const SpladePoolingModule>(spec, pooling, dimension);
}

}  // namespace sieve::model
