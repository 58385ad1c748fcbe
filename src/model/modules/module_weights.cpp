#include "model/modules/module_weights.hpp"

#include "sieve/error.hpp"

namespace sieve::model {
namespace {

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i != 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

}  // namespace

SafetensorsFile open_module_weights(const ModuleSpec& spec) {
  const auto file = spec.folder / "model.safetensors";
  if (std::filesystem::is_regular_file(file)) return SafetensorsFile(file);
  if (std::filesystem::is_regular_file(spec.folder / "pytorch_model.bin")) {
    const auto root = spec.modules_file.parent_path();
    throw Error(ErrorCode::kUnsupported,
                module_where(spec) +
                    ": its weights are in pytorch_model.bin, which Sieve does not read; convert them "
                    "with `sieve-export convert-weights " +
                    root.string() + "` (writes model.safetensors beside it)");
  }
  throw Error(ErrorCode::kNotFound, module_where(spec) + ": no weights (model.safetensors) in " + spec.folder.string());
}

FloatTensor read_module_tensor(const ModuleSpec& spec, const SafetensorsFile& weights, const char* name,
                               const std::vector<std::int64_t>& shape) {
  if (!weights.contains(name)) {
    throw Error(ErrorCode::kParse,
                module_where(spec) + ": " + weights.path().string() + " has no tensor \"" + name + "\"");
  }
  FloatTensor tensor = weights.read(name);
  if (tensor.shape != shape) {
    throw Error(ErrorCode::kParse, module_where(spec) + ": tensor \"" + std::string(name) + "\" has shape " +
                                       shape_text(tensor.shape) + ", the configuration says " + shape_text(shape));
  }
  return tensor;
}

}  // namespace sieve::model
