#pragma once

#include "model/modules/module.hpp"

namespace sieve::model {

// sentence-transformers' Normalize: x / max(||x||, 1e-12). Kept as its own
// type because a trailing Normalize is applied after Matryoshka truncation,
// where callers also ask for normalization.
class NormalizeModule final : public VectorModule {
 public:
  using VectorModule::VectorModule;
  [[nodiscard]] std::string describe() const override { return "Normalize (L2)"; }
  [[nodiscard]] std::size_t output_dimension(std::size_t in) const override { return in; }
  void apply(std::span<const float> in, std::span<float> out) const override;
};

// x / max(||x||, 1e-12) in place, as torch.nn.functional.normalize.
void l2_normalize(std::span<float> vector);

}  // namespace sieve::model
