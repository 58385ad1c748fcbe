// How a session's graph is split over its execution providers, as `sieve info` and the log describe it.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "sieve/model_info.hpp"
#include "sieve/text.hpp"

namespace sieve {

std::string describe_nodes(const ProviderNodes& p) {
  if (p.nodes == 0 && !p.engine.empty()) return p.provider + ": the whole graph, on " + p.engine;
  if (p.nodes == 0) return p.provider + ": no node";
  std::string text = p.provider + ": " + std::to_string(p.nodes) + (p.nodes == 1 ? " node" : " nodes");
  if (!p.engine.empty()) {
    text += " (the whole graph, on " + p.engine + ")";
  } else if (p.subgraphs != p.nodes) {
    text += " in " + std::to_string(p.subgraphs) + (p.subgraphs == 1 ? " subgraph" : " subgraphs");
  } else {
    std::vector<std::pair<std::string, std::size_t>> ops(p.operators.begin(), p.operators.end());
    std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    constexpr std::size_t kShown = 8;  // the most frequent operators; the JSON listing has them all
    const bool more = ops.size() > kShown;
    if (more) ops.resize(kShown);
    text += " (" + join(ops, ", ", [](const auto& op) { return op.first + " " + std::to_string(op.second); }) +
            (more ? ", ...)" : ")");
  }
  return text;
}

}  // namespace sieve
