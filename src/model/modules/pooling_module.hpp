#pragma once

#include <optional>
#include <vector>

#include "model/modules/module.hpp"
#include "sieve/embedder.hpp"

namespace sieve::model {

// sentence-transformers' Pooling: token states to one vector by each mode,
// concatenated in the configured order.
class PoolingModule final : public Module {
 public:
  PoolingModule(ModuleSpec spec, std::vector<Pooling> modes, bool include_prompt,
                std::optional<std::size_t> embedding_dimension);
  [[nodiscard]] ModuleRole role() const noexcept override { return ModuleRole::kPooling; }
  [[nodiscard]] std::string describe() const override;

  [[nodiscard]] const std::vector<Pooling>& modes() const noexcept { return modes_; }
  // false: a prompt's tokens are left out of pooling (INSTRUCTOR-style models).
  [[nodiscard]] bool include_prompt() const noexcept { return include_prompt_; }
  // The token states' width the configuration names, if it does.
  [[nodiscard]] std::optional<std::size_t> embedding_dimension() const noexcept { return embedding_dimension_; }

 private:
  std::vector<Pooling> modes_;
  bool include_prompt_ = true;
  std::optional<std::size_t> embedding_dimension_;
};

// The pooling configuration file alone (a folder with 1_Pooling/config.json
// and no modules.json).
std::shared_ptr<const PoolingModule> read_pooling_module(const ModuleSpec& spec);

}  // namespace sieve::model
