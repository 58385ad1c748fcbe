#include <gtest/gtest.h>

#include "bench/roofline/peak.hpp"

namespace sieve::bench {
namespace {

// The kernels must really do their arithmetic: a compiler that dropped or
// shortened the loop would make the measured peak meaningless.
TEST(RooflinePeak, Fp32KernelDoesEveryMultiplyAdd) {
  const PeakKernel kernel = fp32_kernel();
  EXPECT_FALSE(kernel.isa.empty());
  for (const std::uint64_t n : {1ULL, 4095ULL, 4096ULL, 10000ULL}) {
    // Each multiply-add adds 1/1024 to one lane; ops_per_iteration counts two
    // operations per multiply-add.
    const double lanes_times_accumulators = static_cast<double>(kernel.ops_per_iteration) / 2;
    EXPECT_DOUBLE_EQ(run_fp32(n), static_cast<double>(n) * lanes_times_accumulators / 1024.0) << kernel.isa;
  }
}

TEST(RooflinePeak, Int8KernelDoesEveryProduct) {
  const PeakKernel kernel = int8_kernel();
  EXPECT_FALSE(kernel.isa.empty());
  for (const std::uint64_t n : {1ULL, 5000ULL}) {
    EXPECT_EQ(run_int8(n), static_cast<std::int64_t>(n * kernel.ops_per_iteration / 2)) << kernel.isa;
  }
}

TEST(RooflinePeak, MeasuresAPositiveRateOnEveryThread) {
  const PeakResult fp32 = measure_fp32_peak(2, 0.01, 1);
  EXPECT_GT(fp32.gops, 0.0);
  EXPECT_EQ(fp32.threads, 2);
  EXPECT_EQ(fp32.isa, fp32_kernel().isa);
  const PeakResult int8 = measure_int8_peak(1, 0.01, 1);
  EXPECT_GT(int8.gops, 0.0);
}

}  // namespace
}  // namespace sieve::bench
