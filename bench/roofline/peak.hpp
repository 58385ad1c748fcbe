#pragma once

// The machine's peak multiply-add throughput, measured with small register-
// only kernels: the ceiling of a roofline plot (bench/roofline/roofline.py).
// Each kernel runs independent chains of fused multiply-adds (FP32) or
// u8 x s8 dot products (INT8) so that the FMA units, not latency, bound it.

#include <cstdint>
#include <string>

namespace sieve::bench {

struct PeakKernel {
  std::string isa;  // "avx512f", "avx2+fma", "avx512_vnni", "avx_vnni", "avx2", "scalar"
  // Multiply-adds per call of one step: 2 operations each (a multiply and an add).
  std::uint64_t ops_per_iteration = 0;
};

// The FP32 kernel the CPU supports best: `iterations` rounds over its
// accumulators, each started at 0 and incremented by 1/1024 through
// a * 1 + acc. The return value is the sum of all accumulators, which is
// exact, so a caller can check that the work was done.
PeakKernel fp32_kernel();
double run_fp32(std::uint64_t iterations);

// The INT8 kernel: u8 x s8 products summed into int32 (VNNI's vpdpbusd or
// AVX2's vpmaddubsw + vpmaddwd), every product 1 x 1. Returns the sum of all
// int32 lanes of all accumulators (iterations x ops_per_iteration / 2).
PeakKernel int8_kernel();
std::int64_t run_int8(std::uint64_t iterations);

struct PeakResult {
  std::string isa;
  double gops = 0;  // 10^9 operations per second (2 per multiply-add), all threads together
  int threads = 0;
};

// Runs the kernel on `threads` threads at once for about `seconds` each
// round and keeps the best of `rounds` rounds.
PeakResult measure_fp32_peak(int threads, double seconds, int rounds);
PeakResult measure_int8_peak(int threads, double seconds, int rounds);

}  // namespace sieve::bench
