#pragma once

#include "model/modules/module.hpp"
#include "model/safetensors.hpp"

namespace sieve::model {

// A module's weights: model.safetensors in its folder. An older
// pytorch_model.bin (a pickle, which Sieve does not read) is refused with the
// command that converts it; no file at all is an Error naming the folder.
SafetensorsFile open_module_weights(const ModuleSpec& spec);

// The tensor `name` of a module's weights, checked to have `shape`.
FloatTensor read_module_tensor(const ModuleSpec& spec, const SafetensorsFile& weights, const char* name,
                               const std::vector<std::int64_t>& shape);

}  // namespace sieve::model
