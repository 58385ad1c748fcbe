#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "runtime/session.hpp"
#include "sieve/error.hpp"
#include "support/paths.hpp"

namespace sieve::runtime {
namespace {

TEST(Session, InspectsInputsAndOutputs) {
  RuntimeOptions options;
  options.intra_op_threads = 1;
  const Session s(testing::fixtures_dir() / "tiny-bert-tokens/model.onnx", options);
  ASSERT_EQ(s.inputs().size(), 3U);
  EXPECT_EQ(s.inputs()[0].name, "input_ids");
  EXPECT_EQ(s.inputs()[0].type, ElementType::kInt64);
  EXPECT_EQ(s.inputs()[0].shape, (std::vector<std::int64_t>{-1, -1}));
  ASSERT_EQ(s.outputs().size(), 1U);
  EXPECT_EQ(s.outputs()[0].name, "last_hidden_state");
  EXPECT_EQ(s.outputs()[0].shape.size(), 3U);
  EXPECT_EQ(s.providers(), (std::vector<std::string>{"cpu"}));
  EXPECT_EQ(s.intra_op_threads(), 1);
}

TEST(Session, RunsWithBorrowedBuffers) {
  const Session s(testing::fixtures_dir() / "tiny-bert-tokens/model.onnx", RuntimeOptions{});
  const std::vector<std::int64_t> ids = {101, 7592, 102, 101, 102, 0};
  const std::vector<std::int64_t> mask = {1, 1, 1, 1, 1, 0};
  const std::vector<std::int64_t> types(6, 0);
  const std::vector<Int64Input> inputs = {{0, ids.data(), {2, 3}}, {1, mask.data(), {2, 3}}, {2, types.data(), {2, 3}}};
  const auto out = s.run(inputs, 0);
  EXPECT_EQ(out.shape(), (std::vector<std::int64_t>{2, 3, 32}));
}

TEST(Session, SleepingThreadsGiveTheSameOutput) {
  // Spinning only changes how idle threads wait, never what is computed.
  RuntimeOptions sleeping;
  sleeping.intra_op_threads = 2;
  sleeping.spinning = false;
  RuntimeOptions spinning = sleeping;
  spinning.spinning = true;
  const auto path = testing::fixtures_dir() / "tiny-bert-tokens/model.onnx";
  const Session a(path, sleeping);
  const Session b(path, spinning);
  const std::vector<std::int64_t> ids = {101, 7592, 2088, 102, 101, 102, 0, 0};
  const std::vector<std::int64_t> mask = {1, 1, 1, 1, 1, 1, 0, 0};
  const std::vector<std::int64_t> types(8, 0);
  const std::vector<Int64Input> inputs = {{0, ids.data(), {2, 4}}, {1, mask.data(), {2, 4}}, {2, types.data(), {2, 4}}};
  const auto x = a.run(inputs, 0);
  const auto y = b.run(inputs, 0);
  ASSERT_EQ(x.shape(), (std::vector<std::int64_t>{2, 4, 32}));
  ASSERT_EQ(x.shape(), y.shape());
  for (std::size_t i = 0; i < 2 * 4 * 32; ++i) EXPECT_EQ(x.data()[i], y.data()[i]) << i;
}

TEST(Session, WrongShapesAreErrors) {
  const Session s(testing::fixtures_dir() / "tiny-bert-tokens/model.onnx", RuntimeOptions{});
  const std::vector<std::int64_t> ids = {101, 102};
  const std::vector<std::int64_t> mask = {1, 1, 1};
  // The mask does not match the ids: ORT reports it and nothing leaks.
  const std::vector<Int64Input> inputs = {{0, ids.data(), {1, 2}}, {1, mask.data(), {1, 3}}, {2, ids.data(), {1, 2}}};
  EXPECT_THROW((void)s.run(inputs, 0), Error);
  // Out-of-vocabulary ids make the Gather fail.
  const std::vector<std::int64_t> bad = {99999999, 1};
  const std::vector<Int64Input> oov = {{0, bad.data(), {1, 2}}, {1, bad.data(), {1, 2}}, {2, ids.data(), {1, 2}}};
  EXPECT_THROW((void)s.run(oov, 0), Error);
}

TEST(Session, ThreadCountsAreBoundedByTheMachine) {
  const int limit = max_thread_count();
  EXPECT_EQ(limit, 4 * static_cast<int>(std::max(1U, std::thread::hardware_concurrency())));
  EXPECT_NO_THROW(check_thread_count(0, "--threads"));
  EXPECT_NO_THROW(check_thread_count(limit, "--threads"));
  try {
    check_thread_count(1000000, "--threads");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("--threads 1000000: at most " + std::to_string(limit) + " threads"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(check_thread_count(-1, "threads"), Error);
  // The session layer refuses them too, before any thread starts.
  RuntimeOptions options;
  options.intra_op_threads = limit + 1;
  EXPECT_THROW(Session(testing::fixtures_dir() / "tiny-bert-tokens/model.onnx", options), Error);
  options.intra_op_threads = 1;
  options.inter_op_threads = 1000000;
  EXPECT_THROW(Session(testing::fixtures_dir() / "tiny-bert-tokens/model.onnx", options), Error);
}

TEST(Session, MissingFile) {
  EXPECT_THROW(Session("/nonexistent.onnx", RuntimeOptions{}), Error);
}

TEST(ProviderSpec, Parses) {
  const auto spec = parse_provider_spec("cuda:device_id=1,gpu_mem_limit=1000");
  EXPECT_EQ(spec.name, "cuda");
  EXPECT_EQ(spec.options.at("device_id"), "1");
  EXPECT_EQ(spec.options.at("gpu_mem_limit"), "1000");
  EXPECT_THROW(parse_provider_spec("cuda:oops"), Error);
  EXPECT_THROW(parse_provider_spec(""), Error);
}

TEST(Runtime, AvailableProvidersIncludeCpu) {
  const auto providers = available_providers();
  EXPECT_NE(std::find(providers.begin(), providers.end(), "cpu"), providers.end());
}

}  // namespace
}  // namespace sieve::runtime
