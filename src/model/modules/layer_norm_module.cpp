#include <cmath>

#include "model/json_file.hpp"
#include "model/modules/module_weights.hpp"
#include "sieve/error.hpp"

namespace sieve::model {
namespace {

// sentence-transformers' LayerNorm: torch.nn.LayerNorm(dimension) on the
// pooled vector, with its default epsilon.
class LayerNormModule final : public VectorModule {
 public:
  LayerNormModule(ModuleSpec spec, std::size_t dimension) : VectorModule(std::move(spec)), dimension_(dimension) {
    const auto weights = open_module_weights(this->spec());
    const std::vector<std::int64_t> shape{static_cast<std::int64_t>(dimension)};
    weight_ = read_module_tensor(this->spec(), weights, "norm.weight", shape).values;
    bias_ = read_module_tensor(this->spec(), weights, "norm.bias", shape).values;
  }

  [[nodiscard]] std::string describe() const override { return "LayerNorm " + std::to_string(dimension_); }

  [[nodiscard]] std::size_t output_dimension(std::size_t in) const override {
    if (in != dimension_) {
      throw Error(ErrorCode::kUnsupported, where() + ": its dimension is " + std::to_string(dimension_) +
                                               " but the vectors it gets are " + std::to_string(in) + " wide");
    }
    return dimension_;
  }

  void apply(std::span<const float> in, std::span<float> out) const override {
    constexpr double kEpsilon = 1e-5;
    double mean = 0;
    for (const float v : in) mean += v;
    mean /= static_cast<double>(dimension_);
    double variance = 0;  // biased, as torch's layer_norm
    for (const float v : in) variance += (v - mean) * (v - mean);
    variance /= static_cast<double>(dimension_);
    const double scale = 1 / std::sqrt(variance + kEpsilon);
    for (std::size_t d = 0; d < dimension_; ++d) {
      out[d] = static_cast<float>((in[d] - mean) * scale * weight_[d] + bias_[d]);
    }
  }

 private:
  std::size_t dimension_;
  std::vector<float> weight_;
  std::vector<float> bias_;
};

}  // namespace

std::shared_ptr<const Module> make_layer_norm_module(const ModuleSpec& spec) {
  const auto file = spec.folder / "config.json";
  const auto doc = read_json_file(file);
  if (!doc)
    throw Error(ErrorCode::kNotFound, module_where(spec) + ": its configuration " + file.string() + " is missing");
  const auto dimension = positive_int_field(*doc, "dimension", file);
  if (!dimension) throw Error(ErrorCode::kParse, file.string() + ": /dimension is required");
  return std::make_shared<const LayerNormModule>(spec, *dimension);
}

}  // namespace sieve::model
