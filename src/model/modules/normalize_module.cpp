#include "model/modules/normalize_module.hpp"

#include <algorithm>
#include <cmath>

namespace sieve::model {

void l2_normalize(std::span<float> vector) {
  double sum = 0;
  for (const float v : vector) sum += static_cast<double>(v) * v;
  const double norm = std::max(std::sqrt(sum), 1e-12);
  for (float& v : vector) v = static_cast<float>(v / norm);
}

void NormalizeModule::apply(std::span<const float> in, std::span<float> out) const {
  std::copy(in.begin(), in.end(), out.begin());
  l2_normalize(out);
}

std::shared_ptr<const Module> make_normalize_module(const ModuleSpec& spec) {
  return std::make_shared<const NormalizeModule>(spec);
}

}  // namespace sieve::model
