#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
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

// TF32 matrix products (ONNX Runtime's default on Ampere and later) differ
// from the CPU's float32 by about 1e-3; with them off the GPU agrees to 1e-6.
RuntimeOptions cuda_runtime() {
  RuntimeOptions runtime;
  runtime.providers.push_back(ProviderSpec{"cuda", {{"device_id", "0"}, {"use_tf32", "0"}}});
  runtime.strict_providers = true;
  return runtime;
}

// Why CUDA cannot be tested here, or nullopt when it can.
std::optional<std::string> cuda_unavailable_reason() {
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

// With SIEVE_REQUIRE_CUDA set (bench/run_gpu.sh on a GPU machine) a missing
// CUDA path fails the test instead of skipping it, so a broken set-up cannot
// pass as a skip.
bool cuda_required() {
  const char* flag = std::getenv("SIEVE_REQUIRE_CUDA");
  return flag != nullptr && *flag != '\0' && std::string_view(flag) != "0";
}

#define SKIP_OR_FAIL_WITHOUT_CUDA()                                  \
  do {                                                               \
    if (const auto why = cuda_unavailable_reason()) {                \
      if (cuda_required()) FAIL() << "SIEVE_REQUIRE_CUDA: " << *why; \
      GTEST_SKIP() << *why;                                          \
    }                                                                \
  } while (false)

const std::vector<std::string_view> kGpuTexts = {"a short one", "", "a somewhat longer text about embeddings on a GPU",
                                                 "ÉCOLE naïve café"};

TEST(CudaProvider, EmbeddingsEqualTheCpuOnes) {
  SKIP_OR_FAIL_WITHOUT_CUDA();
  EmbedderOptions gpu;
  gpu.runtime = cuda_runtime();
  const auto on_gpu = Embedder::load(testing::fixtures_dir() / "tiny-bert-tokens", gpu).embed(kGpuTexts);
  const auto on_cpu = Embedder::load(testing::fixtures_dir() / "tiny-bert-tokens").embed(kGpuTexts);
  ASSERT_EQ(on_gpu.data.size(), on_cpu.data.size());
  for (std::size_t i = 0; i < on_cpu.data.size(); ++i) EXPECT_NEAR(on_gpu.data[i], on_cpu.data[i], 1e-5) << i;
}

TEST(CudaProvider, RerankerScoresEqualTheCpuOnes) {
  SKIP_OR_FAIL_WITHOUT_CUDA();
  RerankerOptions gpu;
  gpu.runtime = cuda_runtime();
  const auto folder = testing::fixtures_dir() / "cross-encoder-minilm-l6";
  const auto reranker = Reranker::load(folder, gpu);
  EXPECT_EQ(reranker.info().providers.front(), "cuda");
  const auto on_gpu = reranker.score("what runs on a GPU?", kGpuTexts);
  const auto on_cpu = Reranker::load(folder).score("what runs on a GPU?", kGpuTexts);
  ASSERT_EQ(on_gpu.size(), on_cpu.size());
  for (std::size_t i = 0; i < on_cpu.size(); ++i) EXPECT_NEAR(on_gpu[i], on_cpu[i], 1e-5) << i;
}

}  // namespace
}  // namespace sieve
