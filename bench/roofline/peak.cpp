#include "bench/roofline/peak.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <latch>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace sieve::bench {
namespace {

// Enough independent accumulators to cover FMA latency (4-5 cycles) on two
// ports; more would spill registers on AVX2's 16.
constexpr int kAccumulators = 12;
// Accumulators are folded into a wider total every this many iterations, so
// FP32 sums of 1/1024 stay exact and int32 sums cannot overflow.
constexpr std::uint64_t kBlock = 4096;
constexpr float kStep = 1.0F / 1024.0F;

// A multiplier the compiler cannot see, so that a * 1 + acc stays an FMA.
volatile float g_one = 1.0F;
volatile std::uint8_t g_one_u8 = 1;
volatile std::int8_t g_one_s8 = 1;

double scalar_fp32(std::uint64_t iterations) {
  float acc[kAccumulators] = {};
  const float one = g_one;
  for (std::uint64_t i = 0; i < iterations; ++i) {
    for (float& a : acc) a = kStep * one + a;
  }
  double total = 0;
  for (const float a : acc) total += a;
  return total;
}

std::int64_t scalar_int8(std::uint64_t iterations) {
  std::int32_t acc[kAccumulators] = {};
  const std::int32_t u = g_one_u8;
  const std::int32_t s = g_one_s8;
  for (std::uint64_t i = 0; i < iterations; ++i) {
    for (std::int32_t& a : acc) a += u * s;
  }
  std::int64_t total = 0;
  for (const std::int32_t a : acc) total += a;
  return total;
}

#if defined(__x86_64__)
// Each kernel spells its loop out: vector types may not cross a function
// boundary without the target's ISA (GCC's -Wpsabi), so no shared template.
// Lanes are summed through memory, in order, which keeps FP32 sums exact.
// Accumulator k starts at k: identical chains would let the compiler keep
// one and copy it, measuring latency instead of throughput.
#define SIEVE_FP32_KERNEL(NAME, TARGET, VEC, LANES, SET1, FMA, STORE)               \
  __attribute__((target(TARGET))) double NAME(std::uint64_t iterations) {           \
    const VEC a = SET1(kStep);                                                      \
    const VEC b = SET1(g_one);                                                      \
    double total = 0;                                                               \
    for (std::uint64_t done = 0; done < iterations; done += kBlock) {               \
      VEC acc[kAccumulators];                                                       \
      for (int k = 0; k < kAccumulators; ++k) acc[k] = SET1(static_cast<float>(k)); \
      const std::uint64_t n = std::min(kBlock, iterations - done);                  \
      for (std::uint64_t i = 0; i < n; ++i) {                                       \
        _Pragma("GCC unroll 12") for (auto& v : acc) v = FMA(a, b, v);              \
      }                                                                             \
      alignas(64) float lanes[LANES];                                               \
      for (int k = 0; k < kAccumulators; ++k) {                                     \
        STORE(lanes, acc[k]);                                                       \
        for (const float f : lanes) total += f - static_cast<float>(k);             \
      }                                                                             \
    }                                                                               \
    return total;                                                                   \
  }

SIEVE_FP32_KERNEL(avx512_fp32, "avx512f", __m512, 16, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_store_ps)
SIEVE_FP32_KERNEL(avx2_fp32, "avx2,fma", __m256, 8, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_store_ps)
#undef SIEVE_FP32_KERNEL

#define SIEVE_INT8_KERNEL(NAME, TARGET, VEC, LANES, SET1, SET1_32, STEP, STORE) \
  __attribute__((target(TARGET))) std::int64_t NAME(std::uint64_t iterations) { \
    const VEC u = SET1(static_cast<char>(g_one_u8));                            \
    const VEC s = SET1(static_cast<char>(g_one_s8));                            \
    std::int64_t total = 0;                                                     \
    for (std::uint64_t done = 0; done < iterations; done += kBlock) {           \
      VEC acc[kAccumulators];                                                   \
      for (int k = 0; k < kAccumulators; ++k) acc[k] = SET1_32(k);              \
      const std::uint64_t n = std::min(kBlock, iterations - done);              \
      for (std::uint64_t i = 0; i < n; ++i) {                                   \
        _Pragma("GCC unroll 12") for (auto& v : acc) v = STEP(v, u, s);         \
      }                                                                         \
      alignas(64) std::int32_t lanes[LANES];                                    \
      for (int k = 0; k < kAccumulators; ++k) {                                 \
        STORE(reinterpret_cast<VEC*>(lanes), acc[k]);                           \
        for (const std::int32_t x : lanes) total += x - k;                      \
      }                                                                         \
    }                                                                           \
    return total;                                                               \
  }

// Without VNNI: u8 x s8 pairs summed to int16 (vpmaddubsw), then pairs of
// int16 to int32 (vpmaddwd by 1), then added: what int8 GEMMs do on AVX2.
#define SIEVE_AVX2_DOT(acc, x, y) \
  _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(x, y), _mm256_set1_epi16(1)))

SIEVE_INT8_KERNEL(avx512_vnni_int8, "avx512f,avx512vnni", __m512i, 16, _mm512_set1_epi8, _mm512_set1_epi32,
                  _mm512_dpbusd_epi32, _mm512_store_si512)
SIEVE_INT8_KERNEL(avx_vnni_int8, "avx2,avxvnni", __m256i, 8, _mm256_set1_epi8, _mm256_set1_epi32,
                  _mm256_dpbusd_avx_epi32, _mm256_store_si256)
SIEVE_INT8_KERNEL(avx2_int8, "avx2", __m256i, 8, _mm256_set1_epi8, _mm256_set1_epi32, SIEVE_AVX2_DOT,
                  _mm256_store_si256)
#undef SIEVE_AVX2_DOT
#undef SIEVE_INT8_KERNEL
#endif

enum class Isa { kScalar, kAvx2, kAvx512, kAvxVnni, kAvx512Vnni };

Isa fp32_isa() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f")) return Isa::kAvx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::kAvx2;
#endif
  return Isa::kScalar;
}

Isa int8_isa() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512vnni")) return Isa::kAvx512Vnni;
  if (__builtin_cpu_supports("avxvnni")) return Isa::kAvxVnni;
  if (__builtin_cpu_supports("avx2")) return Isa::kAvx2;
#endif
  return Isa::kScalar;
}

template <typename Run>
PeakResult measure(const PeakKernel& kernel, Run run, int threads, double seconds, int rounds) {
  threads = std::max(threads, 1);
  // Calibrate one thread's speed, then size each round to `seconds`.
  std::uint64_t iterations = kBlock;
  for (;;) {
    const auto t0 = std::chrono::steady_clock::now();
    run(iterations);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (took > 0.02 || iterations > (1ULL << 40)) {
      iterations = std::max<std::uint64_t>(kBlock, static_cast<std::uint64_t>(iterations * seconds / took));
      break;
    }
    iterations *= 4;
  }
  PeakResult best{kernel.isa, 0, threads};
  for (int r = 0; r < std::max(rounds, 1); ++r) {
    std::latch start(threads + 1);
    std::vector<std::thread> pool;
    pool.reserve(static_cast<std::size_t>(threads));
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&] {
        start.arrive_and_wait();
        run(iterations);
      });
    }
    start.arrive_and_wait();
    const auto t0 = std::chrono::steady_clock::now();
    for (auto& th : pool) th.join();
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double ops = static_cast<double>(iterations) * static_cast<double>(kernel.ops_per_iteration) * threads;
    best.gops = std::max(best.gops, ops / took / 1e9);
  }
  return best;
}

}  // namespace

PeakKernel fp32_kernel() {
  switch (fp32_isa()) {
    case Isa::kAvx512: return {"avx512f", kAccumulators * 16 * 2};
    case Isa::kAvx2: return {"avx2+fma", kAccumulators * 8 * 2};
    default: return {"scalar", kAccumulators * 2};
  }
}

double run_fp32(std::uint64_t iterations) {
#if defined(__x86_64__)
  switch (fp32_isa()) {
    case Isa::kAvx512: return avx512_fp32(iterations);
    case Isa::kAvx2: return avx2_fp32(iterations);
    default: break;
  }
#endif
  return scalar_fp32(iterations);
}

PeakKernel int8_kernel() {
  switch (int8_isa()) {
    case Isa::kAvx512Vnni: return {"avx512_vnni", kAccumulators * 64 * 2};
    case Isa::kAvxVnni: return {"avx_vnni", kAccumulators * 32 * 2};
    case Isa::kAvx2: return {"avx2", kAccumulators * 32 * 2};
    default: return {"scalar", kAccumulators * 2};
  }
}

std::int64_t run_int8(std::uint64_t iterations) {
#if defined(__x86_64__)
  switch (int8_isa()) {
    case Isa::kAvx512Vnni: return avx512_vnni_int8(iterations);
    case Isa::kAvxVnni: return avx_vnni_int8(iterations);
    case Isa::kAvx2: return avx2_int8(iterations);
    default: break;
  }
#endif
  return scalar_int8(iterations);
}

PeakResult measure_fp32_peak(int threads, double seconds, int rounds) {
  return measure(
      fp32_kernel(), [](std::uint64_t n) { (void)run_fp32(n); }, threads, seconds, rounds);
}

PeakResult measure_int8_peak(int threads, double seconds, int rounds) {
  return measure(
      int8_kernel(), [](std::uint64_t n) { (void)run_int8(n); }, threads, seconds, rounds);
}

}  // namespace sieve::bench
