#include "tokenizer/core/component_registry.hpp"

namespace sieve::tokenizer {

const ComponentRegistry& ComponentRegistry::builtin() {
  static const ComponentRegistry registry = [] {
    ComponentRegistry r;
    register_normalizers(r.normalizers);
    register_pre_tokenizers(r.pre_tokenizers);
    register_models(r.models);
    register_processors(r.processors);
    register_decoders(r.decoders);
    return r;
  }();
  return registry;
}

}  // namespace sieve::tokenizer
