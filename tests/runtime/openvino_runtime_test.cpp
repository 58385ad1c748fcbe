#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include "runtime/openvino_runtime.hpp"
#include "runtime/session.hpp"
#include "sieve/error.hpp"
#include "support/paths.hpp"

namespace sieve::runtime {
namespace {

// The set-up installs OpenVINO's runtime beside the plugin; a build without it skips, saying why.
#define SKIP_WITHOUT_OPENVINO()                                                    \
  do {                                                                             \
    const auto info = openvino_runtime_info(ProviderSpec{"openvino", {}});         \
    if (!info.error.empty()) GTEST_SKIP() << "OpenVINO's runtime: " << info.error; \
  } while (false)

ProviderSpec spec_with(std::map<std::string, std::string> options) {
  return ProviderSpec{"openvino", std::move(options)};
}

const std::vector<std::int64_t> kIds = {101, 7592, 2088, 102, 101, 102, 0, 0};
const std::vector<std::int64_t> kMask = {1, 1, 1, 1, 1, 1, 0, 0};
const std::vector<std::int64_t> kTypes(8, 0);

std::vector<Int64Input> two_rows() {
  return {{0, kIds.data(), {2, 4}}, {1, kMask.data(), {2, 4}}, {2, kTypes.data(), {2, 4}}};
}

TEST(OpenVinoRuntime, MatchesOnnxRuntimeAtF32) {
  SKIP_WITHOUT_OPENVINO();
  const auto path = testing::fixtures_dir() / "tiny-bert-tokens/model.onnx";
  const OpenVinoGraph graph(path, spec_with({{"precision", "f32"}}), 1);
  const Session reference(path, RuntimeOptions{});
  ASSERT_EQ(graph.inputs().size(), reference.inputs().size());
  for (std::size_t i = 0; i < graph.inputs().size(); ++i) {
    EXPECT_EQ(graph.inputs()[i].name, reference.inputs()[i].name);
    EXPECT_EQ(graph.inputs()[i].type, reference.inputs()[i].type);
    EXPECT_EQ(graph.inputs()[i].shape, reference.inputs()[i].shape);
  }
  ASSERT_EQ(graph.outputs().size(), 1U);
  EXPECT_EQ(graph.outputs()[0].name, "last_hidden_state");
  EXPECT_EQ(graph.threads(), 1);
  EXPECT_NE(graph.description().find(" on CPU at f32"), std::string::npos) << graph.description();
  const auto inputs = two_rows();
  const auto x = graph.run(inputs, 0);
  const auto y = reference.run(inputs, 0);
  ASSERT_EQ(x.shape(), (std::vector<std::int64_t>{2, 4, 32}));
  ASSERT_EQ(x.shape(), y.shape());
  for (std::size_t i = 0; i < 2 * 4 * 32; ++i) EXPECT_NEAR(x.data()[i], y.data()[i], 1e-4) << i;
}

TEST(OpenVinoRuntime, ConcurrentRunsEachTakeTheirOwnRequest) {
  SKIP_WITHOUT_OPENVINO();
  const OpenVinoGraph graph(testing::fixtures_dir() / "tiny-bert-tokens/model.onnx", spec_with({}), 2);
  const auto inputs = two_rows();
  const auto expected = graph.run(inputs, 0);
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 5; ++round) {
        const auto got = graph.run(inputs, 0);
        for (std::size_t i = 0; i < 2 * 4 * 32; ++i) mismatches[t] += got.data()[i] != expected.data()[i] ? 1 : 0;
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const int m : mismatches) EXPECT_EQ(m, 0);
}

TEST(OpenVinoRuntime, BadInputsAreErrorsAndTheGraphStillRuns) {
  SKIP_WITHOUT_OPENVINO();
  const OpenVinoGraph graph(testing::fixtures_dir() / "tiny-bert-tokens/model.onnx", spec_with({}), 1);
  // Ids of the wrong rank: OpenVINO's shape check refuses them, and the request goes back to the pool unharmed.
  const std::vector<Int64Input> flat = {{0, kIds.data(), {8}}, {1, kMask.data(), {8}}, {2, kTypes.data(), {8}}};
  EXPECT_THROW((void)graph.run(flat, 0), Error);
  EXPECT_EQ(graph.run(two_rows(), 0).shape(), (std::vector<std::int64_t>{2, 4, 32}));
}

TEST(OpenVinoRuntime, OptionAndFileErrorsAreClear) {
  SKIP_WITHOUT_OPENVINO();
  const auto path = testing::fixtures_dir() / "tiny-bert-tokens/model.onnx";
  try {
    const OpenVinoGraph graph(path, spec_with({{"device", "qpu"}}), 1);
    FAIL() << "a device the machine lacks was taken";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("option device=QPU: this machine offers CPU"), std::string::npos) << e.what();
  }
  try {
    const OpenVinoGraph graph(path, spec_with({{"precision", "int3"}}), 1);
    FAIL() << "a bad precision was taken";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
  }
  const auto broken = std::filesystem::temp_directory_path() / "sieve-openvino-broken.onnx";
  std::ofstream(broken) << "not a model";
  try {
    const OpenVinoGraph graph(broken, spec_with({}), 1);
    FAIL() << "a file that is not a model was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("OpenVINO's runtime failed reading"), std::string::npos) << e.what();
  }
  std::filesystem::remove(broken);
}

}  // namespace
}  // namespace sieve::runtime
