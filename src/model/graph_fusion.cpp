#include "model/graph_fusion.hpp"

#include <array>
#include <string_view>

#include "model/onnx_summary.hpp"
#include "sieve/error.hpp"

namespace sieve::model {
namespace {

// ONNX Runtime's fused transformer operators (com.microsoft contrib ops, and
// ONNX's own Gelu), in the order a report lists them.
constexpr std::array<std::string_view, 14> kFusedOperators = {"Attention",
                                                              "MultiHeadAttention",
                                                              "GroupQueryAttention",
                                                              "PackedAttention",
                                                              "EmbedLayerNormalization",
                                                              "SkipLayerNormalization",
                                                              "SkipSimplifiedLayerNormalization",
                                                              "BiasGelu",
                                                              "FastGelu",
                                                              "Gelu",
                                                              "QuickGelu",
                                                              "BiasSplitGelu",
                                                              "RotaryEmbedding",
                                                              "FusedMatMul"};

constexpr std::array<std::string_view, 4> kAttentionOperators = {"Attention", "MultiHeadAttention",
                                                                 "GroupQueryAttention", "PackedAttention"};

int count_of(const std::map<std::string, int>& operators, std::string_view op) {
  const auto it = operators.find(std::string(op));
  return it == operators.end() ? 0 : it->second;
}

}  // namespace

FusionReport describe_fusion(const std::map<std::string, int>& operators) {
  FusionReport report;
  int attention = 0;
  for (const auto op : kFusedOperators) {
    if (const int n = count_of(operators, op); n > 0) report.fused.emplace_back(std::string(op), n);
  }
  for (const auto op : kAttentionOperators) attention += count_of(operators, op);
  const int softmax = count_of(operators, "Softmax");
  if (softmax > 0 && attention == 0) {
    report.unfused = std::to_string(softmax) + " attention block" + (softmax == 1 ? "" : "s") +
                     " (Softmax) run as separate operators; `sieve-export optimize DIR --out DIR2` writes the "
                     "fused graph where ONNX Runtime's transformer optimizer recognises it";
  }
  return report;
}

FusionReport describe_fusion(const std::filesystem::path& onnx_file) {
  try {
    return describe_fusion(read_onnx_summary(onnx_file).operators);
  } catch (const Error&) {
    return {};
  }
}

}  // namespace sieve::model
