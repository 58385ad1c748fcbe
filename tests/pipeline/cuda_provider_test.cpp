#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sieve/embedder.hpp"
#include "sieve/error.hpp"
#include "sieve/reranker.hpp"
#include "support/paths.hpp"

// The CUDA path, run only where a CUDA-enabled ONNX Runtime and a GPU are
// present (README: "Using a CUDA-enabled ONNX Runtime"); elsewhere each test
// is skipped with the reason. On a GPU the results must equal the CPU's.
namespace sieve {
namespace {

RuntimeOptions cuda_runtime() {
  RuntimeOptions runtime;
  runtime.providers.push_back(ProviderSpec{"cuda", {{"device_id", "0"}}});
  runtime.strict_providers = true;
  return runtime;
}

// Why CUDA cannot be tested here, or nullopt when it can.
std::optional<std::string> cuda_unavailable() {
  EmbedderOptions options;
  options.runtime = cuda_runtime();
  try {
    const auto e = Embedder::load(testing::fixtures_dir() / "tiny-bert-tokens", options);
    if (e.info().providers.empty() || e.info().providers.front() != "cuda") return "CUDA provider not in use";
    return std::nullopt;
  } catch (const Error& e) {
    return std::string("no CUDA-enabled ONNX Runtime with a GPU here (") + e.what() + ")";
  }
}

const std::vector<std::string_view> kTexts = {"a short one", "", "a somewhat longer text about embeddings on a GPU",
                                              "ÉCOLE naïve café"};

TEST(CudaProvider, EmbeddingsEqualTheCpuOnes) {
  if (const auto why = cuda_unavailable()) GTEST_SKIP() << *why;
  EmbedderOptions gpu;
  gpu.runtime = cuda_runtime();
  const auto on_gpu = Embedder::load(testing::fixtures_dir() / "tiny-bert-tokens", gpu).embed(kTexts);
  const auto on_cpu = Embedder::load(testing::fixtures_dir() / "tiny-bert-tokens").embed(kTexts);
  ASSERT_EQ(on_gpu.data.size(), on_cpu.data.size());
  for (std::size_t i = 0; i < on_cpu.data.size(); ++i) EXPECT_NEAR(on_gpu.data[i], on_cpu.data[i], 1e-4) << i;
}

TEST(CudaProvider, RerankerScoresEqualTheCpuOnes) {
  if (const auto why = cuda_unavailable()) GTEST_SKIP() << *why;
  RerankerOptions gpu;
  gpu.runtime = cuda_runtime();
  const auto folder = testing::fixtures_dir() / "cross-encoder-minilm-l6";
  const auto reranker = Reranker::load(folder, gpu);
  EXPECT_EQ(reranker.info().providers.front(), "cuda");
  const auto on_gpu = reranker.score("what runs on a GPU?", kTexts);
  const auto on_cpu = Reranker::load(folder).score("what runs on a GPU?", kTexts);
  ASSERT_EQ(on_gpu.size(), on_cpu.size());
  for (std::size_t i = 0; i < on_cpu.size(); ++i) EXPECT_NEAR(on_gpu[i], on_cpu[i], 1e-4) << i;
}

}  // namespace
}  // namespace sieve
