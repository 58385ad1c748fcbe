#include "model/graph_fusion.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "model/onnx_summary.hpp"
#include "support/paths.hpp"

namespace sieve::model {
namespace {

namespace fs = std::filesystem;

int layers_of(const fs::path& folder) {
  std::ifstream in(folder / "config.json");
  return nlohmann::json::parse(in).at("num_hidden_layers").get<int>();
}

TEST(GraphFusion, CountsTheOperatorsOfTheMainGraph) {
  const fs::path folder = testing::fixtures_dir() / "tiny-bert-tokens";
  const auto ops = read_onnx_summary(folder / "model.onnx").operators;
  const int layers = layers_of(folder);
  ASSERT_GT(layers, 0);
  // tools/bert_onnx.py writes BERT operator for operator: per layer one
  // Softmax, two LayerNormalization and six MatMul (Q, K, V, QK, PV, output)
  // plus the FFN's two; one more LayerNormalization for the embeddings.
  EXPECT_EQ(ops.at("Softmax"), layers);
  EXPECT_EQ(ops.at("LayerNormalization"), 2 * layers + 1);
  EXPECT_EQ(ops.at("MatMul"), 8 * layers);
  EXPECT_EQ(ops.at("Erf"), layers);
  EXPECT_FALSE(ops.contains("Attention"));
}

TEST(GraphFusion, AnUnfusedEncoderIsReportedWithTheRemedy) {
  const fs::path folder = testing::fixtures_dir() / "tiny-bert-tokens";
  const FusionReport report = describe_fusion(folder / "model.onnx");
  EXPECT_TRUE(report.fused.empty());
  EXPECT_NE(report.unfused.find(std::to_string(layers_of(folder)) + " attention blocks"), std::string::npos)
      << report.unfused;
  EXPECT_NE(report.unfused.find("sieve-export optimize"), std::string::npos) << report.unfused;
}

TEST(GraphFusion, AFusedEncoderListsItsOperatorsInAFixedOrder) {
  const FusionReport report = describe_fusion(std::map<std::string, int>{
      {"BiasGelu", 6}, {"MatMul", 18}, {"Attention", 6}, {"SkipLayerNormalization", 13}, {"Gather", 2}});
  const std::vector<std::pair<std::string, int>> want{
      {"Attention", 6}, {"SkipLayerNormalization", 13}, {"BiasGelu", 6}};
  EXPECT_EQ(report.fused, want);
  EXPECT_TRUE(report.unfused.empty());
}

TEST(GraphFusion, PartialFusionStillNamesTheUnfusedAttention) {
  // SkipLayerNormalization and BiasGelu fused, attention left as Softmax:
  // what ONNX Runtime's optimizer does to a graph whose mask it does not match.
  const FusionReport report =
      describe_fusion(std::map<std::string, int>{{"Softmax", 1}, {"SkipLayerNormalization", 3}, {"BiasGelu", 1}});
  EXPECT_EQ(report.fused.size(), 2U);
  EXPECT_NE(report.unfused.find("1 attention block (Softmax)"), std::string::npos) << report.unfused;
}

TEST(GraphFusion, AGraphWithoutAttentionIsNeitherFusedNorFlagged) {
  const FusionReport report = describe_fusion(std::map<std::string, int>{{"MatMul", 2}, {"Relu", 1}});
  EXPECT_TRUE(report.fused.empty());
  EXPECT_TRUE(report.unfused.empty());
}

TEST(GraphFusion, AnUnreadableFileGivesAnEmptyReport) {
  const fs::path file = fs::temp_directory_path() / ("sieve-fusion-" + std::to_string(::getpid()) + ".onnx");
  std::ofstream(file, std::ios::binary) << "\x08\x01garbage";
  const FusionReport report = describe_fusion(file);
  EXPECT_TRUE(report.fused.empty());
  EXPECT_TRUE(report.unfused.empty());
  fs::remove(file);
}

}  // namespace
}  // namespace sieve::model
