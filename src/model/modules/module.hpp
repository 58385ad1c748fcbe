#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace sieve::model {

// One entry of a model folder's modules.json: a sentence-transformers module.
struct ModuleSpec {
  std::filesystem::path modules_file;  // the modules.json it came from
  std::size_t index = 0;               // its position in the list
  std::string type;                    // the class, e.g. "sentence_transformers.models.Dense"
  std::string class_name;              // the class alone, e.g. "Dense"
  std::filesystem::path folder;        // the module's folder (its "path" under the model folder)
  std::string path;                    // "path" as written ("" for the model folder itself)
};

// Where a module acts in sentence-transformers' sequence: the transformer
// makes token states, pooling makes one vector of them, vector modules map
// that vector to another; sparse pooling makes one weight per vocabulary
// entry of a masked-language model's logits (SPLADE).
enum class ModuleRole { kTransformer, kPooling, kVector, kSparsePooling };

// A module of the sequence, read from its folder and checked when the model
// folder is read (before anything is loaded): a module that Sieve would not
// apply exactly as sentence-transformers does is refused there.
class Module {
 public:
  explicit Module(ModuleSpec spec) : spec_(std::move(spec)) {}
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  virtual ~Module() = default;

  [[nodiscard]] virtual ModuleRole role() const noexcept = 0;
  // What it does, for `sieve info`: "Dense 64 -> 32, bias, Tanh".
  [[nodiscard]] virtual std::string describe() const = 0;
  [[nodiscard]] const ModuleSpec& spec() const noexcept { return spec_; }
  // A Transformer's task: "feature-extraction" (token states) or
  // "fill-mask" (masked-language-model logits, for SPLADE); "" otherwise.
  [[nodiscard]] virtual std::string transformer_task() const { return {}; }
  // The module in error messages: modules.json path, index, folder and class.
  [[nodiscard]] std::string where() const;

 private:
  ModuleSpec spec_;
};

// A module that maps each pooled vector to another (Dense, LayerNorm, Normalize).
class VectorModule : public Module {
 public:
  using Module::Module;
  [[nodiscard]] ModuleRole role() const noexcept final { return ModuleRole::kVector; }
  // The width of its output for an input `in` wide; an input it cannot take
  // (Dense in_features differ) is an Error naming the module.
  [[nodiscard]] virtual std::size_t output_dimension(std::size_t in) const = 0;
  // One vector: `out` is output_dimension(in.size()) wide and does not alias `in`.
  virtual void apply(std::span<const float> in, std::span<float> out) const = 0;
  // `rows` vectors, row-major, each in.size() / rows wide (many token vectors
  // at once); by default apply() on each.
  virtual void apply_rows(std::span<const float> in, std::size_t rows, std::span<float> out) const {
    if (rows == 0) return;
    const std::size_t in_width = in.size() / rows;
    const std::size_t out_width = out.size() / rows;
    for (std::size_t r = 0; r < rows; ++r) {
      apply(in.subspan(r * in_width, in_width), out.subspan(r * out_width, out_width));
    }
  }
};

// PyLate's Dense, the projection of each token's state in a ColBERT model.
inline constexpr std::string_view kPylateDense = "pylate.models.Dense.Dense";

// "modules.json: module 2 (2_Dense, sentence_transformers.models.Dense)".
std::string module_where(const ModuleSpec& spec);

// The module of `spec`, made by the factory of its class; a class Sieve does
// not apply is an Error (kUnsupported) naming it and what to do.
std::shared_ptr<const Module> make_module(const ModuleSpec& spec);

// The factories, one per file of this folder (module_factory.cpp keys them by class).
std::shared_ptr<const Module> make_transformer_module(const ModuleSpec& spec);
std::shared_ptr<const Module> make_pooling_module(const ModuleSpec& spec);
std::shared_ptr<const Module> make_dense_module(const ModuleSpec& spec);
std::shared_ptr<const Module> make_normalize_module(const ModuleSpec& spec);
std::shared_ptr<const Module> make_layer_norm_module(const ModuleSpec& spec);
std::shared_ptr<const Module> make_dropout_module(const ModuleSpec& spec);
std::shared_ptr<const Module> make_splade_pooling_module(const ModuleSpec& spec);

}  // namespace sieve::model
