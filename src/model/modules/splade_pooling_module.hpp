#pragma once

#include <memory>
#include <optional>

#include "model/modules/module.hpp"
#include "sieve/embedder.hpp"

namespace sieve::model {

// sentence-transformers' SpladePooling: masked-language-model logits to one
// weight per vocabulary entry, log1p(relu(logit)) pooled over the real
// tokens by max or sum ("log1p_relu" applies log1p once more).
class SpladePoolingModule final : public Module {
 public:
  SpladePoolingModule(ModuleSpec spec, SparsePooling pooling, std::optional<std::size_t> dimension)
      : Module(std::move(spec)), pooling_(pooling), dimension_(dimension) {}
  [[nodiscard]] ModuleRole role() const noexcept override { return ModuleRole::kSparsePooling; }
  [[nodiscard]] std::string describe() const override;
  [[nodiscard]] const SparsePooling& pooling() const noexcept { return pooling_; }
  // The vocabulary size the configuration names, if it does.
  [[nodiscard]] std::optional<std::size_t> dimension() const noexcept { return dimension_; }

 private:
  SparsePooling pooling_;
  std::optional<std::size_t> dimension_;
};

}  // namespace sieve::model
