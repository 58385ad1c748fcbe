#include <cmath>
#include <string_view>

#include "model/json_file.hpp"
#include "model/modules/module_weights.hpp"
#include "sieve/error.hpp"

namespace sieve::model {
namespace {

// The activation functions of torch.nn that sentence-transformers' Dense
// instantiates with their defaults (its configuration names the class).
enum class Activation { kIdentity, kTanh, kReLU, kGELU, kSigmoid, kSiLU, kLeakyReLU, kELU, kSoftplus, kMish };

struct ActivationName {
  std::string_view name;
  Activation activation;
};
constexpr ActivationName kActivations[] = {
    {"Identity", Activation::kIdentity},   {"Tanh", Activation::kTanh},       {"ReLU", Activation::kReLU},
    {"GELU", Activation::kGELU},           {"Sigmoid", Activation::kSigmoid}, {"SiLU", Activation::kSiLU},
    {"LeakyReLU", Activation::kLeakyReLU}, {"ELU", Activation::kELU},         {"Softplus", Activation::kSoftplus},
    {"Mish", Activation::kMish},
};

double softplus(double x) {
  // torch's Softplus(beta=1, threshold=20) is linear above the threshold.
  return x > 20 ? x : std::log1p(std::exp(x));
}

double activate(Activation a, double x) {
  switch (a) {
    case Activation::kIdentity: return x;
    case Activation::kTanh: return std::tanh(x);
    case Activation::kReLU: return x > 0 ? x : 0;
    case Activation::kGELU: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));  // exact, torch's default
    case Activation::kSigmoid: return 1 / (1 + std::exp(-x));
    case Activation::kSiLU: return x / (1 + std::exp(-x));
    case Activation::kLeakyReLU: return x >= 0 ? x : 0.01 * x;
    case Activation::kELU: return x > 0 ? x : std::expm1(x);
    case Activation::kSoftplus: return softplus(x);
    case Activation::kMish: return x * std::tanh(softplus(x));
  }
  return x;
}

// sentence-transformers' Dense: activation(W x + b) on the pooled vector.
class DenseModule final : public VectorModule {
 public:
  DenseModule(ModuleSpec spec, std::size_t in, std::size_t out, bool bias, Activation activation,
              std::string activation_name)
      : VectorModule(std::move(spec)),
        in_(in),
        out_(out),
        activation_(activation),
        activation_name_(std::move(activation_name)) {
    const auto weights = open_module_weights(this->spec());
    weight_ = read_module_tensor(this->spec(), weights, "linear.weight",
                                 {static_cast<std::int64_t>(out), static_cast<std::int64_t>(in)})
                  .values;
    if (bias) bias_ = read_module_tensor(this->spec(), weights, "linear.bias", {static_cast<std::int64_t>(out)}).values;
  }

  [[nodiscard]] std::string describe() const override {
    return "Dense " + std::to_string(in_) + " -> " + std::to_string(out_) + (bias_.empty() ? ", no bias" : ", bias") +
           ", " + activation_name_;
  }

  [[nodiscard]] std::size_t output_dimension(std::size_t in) const override {
    if (in != in_) {
      throw Error(ErrorCode::kUnsupported, where() + ": in_features is " + std::to_string(in_) +
                                               " but the vectors it gets are " + std::to_string(in) + " wide");
    }
    return out_;
  }

  // Many rows (a ColBERT model's token vectors): float32 sums in eight lanes,
  // which the compiler vectorizes, as torch's float32 matrix product sums.
  void apply_rows(std::span<const float> in, std::size_t rows, std::span<float> out) const override {
    constexpr std::size_t kLanes = 8;
    const std::size_t whole = in_ - in_ % kLanes;
    for (std::size_t r = 0; r < rows; ++r) {
      const float* x = in.data() + r * in_;
      float* y = out.data() + r * out_;
      for (std::size_t o = 0; o < out_; ++o) {
        const float* w = weight_.data() + o * in_;
        float lanes[kLanes] = {};
        for (std::size_t i = 0; i < whole; i += kLanes) {
          for (std::size_t k = 0; k < kLanes; ++k) lanes[k] += w[i + k] * x[i + k];
        }
        float sum = bias_.empty() ? 0.0F : bias_[o];
        for (std::size_t i = whole; i < in_; ++i) sum += w[i] * x[i];
        for (const float lane : lanes) sum += lane;
        y[o] = static_cast<float>(activate(activation_, sum));
      }
    }
  }

  void apply(std::span<const float> in, std::span<float> out) const override {
    for (std::size_t o = 0; o < out_; ++o) {
      const float* row = weight_.data() + o * in_;
      double sum = bias_.empty() ? 0.0 : bias_[o];
      for (std::size_t i = 0; i < in_; ++i) sum += static_cast<double>(row[i]) * in[i];
      // torch computes the linear layer in float32 and then the activation.
      out[o] = static_cast<float>(activate(activation_, static_cast<float>(sum)));
    }
  }

 private:
  std::size_t in_;
  std::size_t out_;
  Activation activation_;
  std::string activation_name_;
  std::vector<float> weight_;  // [out, in]
  std::vector<float> bias_;    // [out] or empty
};

}  // namespace

std::shared_ptr<const Module> make_dense_module(const ModuleSpec& spec) {
  const auto file = spec.folder / "config.json";
  const auto doc = read_json_file(file);
  if (!doc)
    throw Error(ErrorCode::kNotFound, module_where(spec) + ": its configuration " + file.string() + " is missing");
  const auto in = positive_int_field(*doc, "in_features", file);
  const auto out = positive_int_field(*doc, "out_features", file);
  if (!in || !out) throw Error(ErrorCode::kParse, file.string() + ": in_features and out_features are required");
  const bool bias = bool_field(*doc, "bias", file).value_or(true);
  const bool per_token = spec.type == kPylateDense;
  if (per_token && bool_field(*doc, "use_residual", file).value_or(false)) {
    throw Error(ErrorCode::kUnsupported,
                module_where(spec) + ": use_residual is true; Sieve applies PyLate's Dense without a residual only");
  }
  // Other inputs or outputs than the pooled vector (a Dense on token states)
  // change what pooling sees, or leave the vector alone.
  for (const char* key : {"module_input_name", "module_output_name"}) {
    if (per_token) break;
    const auto name = string_field(*doc, key, file);
    if (name && *name != "sentence_embedding") {
      throw Error(ErrorCode::kUnsupported, module_where(spec) + ": " + key + " is \"" + *name +
                                               "\"; Sieve applies Dense modules to the pooled vector "
                                               "(\"sentence_embedding\") only");
    }
  }
  // sentence-transformers' default is Tanh; it instantiates a torch class with
  // no arguments, and anything outside torch only with trust_remote_code.
  // PyLate's default is Identity.
  std::string name = string_field(*doc, "activation_function", file)
                         .value_or(per_token ? "torch.nn.modules.linear.Identity" : "torch.nn.modules.activation.Tanh");
  const std::string_view short_name = std::string_view(name).substr(name.rfind('.') + 1);
  if (name.starts_with("torch.")) {
    for (const auto& a : kActivations) {
      if (a.name == short_name) {
        return std::make_shared<const DenseModule>(spec, *in, *out, bias, a.activation, std::string(a.name));
      }
    }
  }
  std::string known;
  for (const auto& a : kActivations) {
    if (!known.empty()) known += ", ";
    known += a.name;
  }
  throw Error(ErrorCode::kUnsupported, module_where(spec) + ": activation function \"" + name +
                                           "\" is not one Sieve applies (torch.nn's " + known + ")");
}

}  // namespace sieve::model
