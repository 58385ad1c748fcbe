#include "tokenizer/core/component_registry.hpp"

namespace sieve::tokenizer {

void register_decoders(FactoryTable<Decoder>& /*table*/) {}

}  // namespace sieve::tokenizer
