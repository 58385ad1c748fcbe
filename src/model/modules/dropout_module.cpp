#include <algorithm>

#include "model/modules/module.hpp"

namespace sieve::model {
namespace {

// sentence-transformers' Dropout: the identity when encoding (no training).
class DropoutModule final : public VectorModule {
 public:
  using VectorModule::VectorModule;
  [[nodiscard]] std::string describe() const override { return "Dropout (the identity when encoding)"; }
  [[nodiscard]] std::size_t output_dimension(std::size_t in) const override { return in; }
  void apply(std::span<const float> in, std::span<float> out) const override {
    std::copy(in.begin(), in.end(), out.begin());
  }
};

}  // namespace

std::shared_ptr<const Module> make_dropout_module(const ModuleSpec& spec) {
  return std::make_shared<const DropoutModule>(spec);
}

}  // namespace sieve::model
