// sieve_roofline_peak: the machine's peak FP32 and INT8 multiply-add
// throughput as JSON, for bench/roofline/roofline.py.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <iostream>
#include <thread>

#include "bench/roofline/peak.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Peak FP32 and INT8 multiply-add throughput of this machine (GFLOP/s, GOP/s)"};
  int threads = static_cast<int>(std::thread::hardware_concurrency());
  double seconds = 0.5;
  int rounds = 5;
  app.add_option("--threads", threads, "Threads running the kernel at once (default: every logical CPU)");
  app.add_option("--seconds", seconds, "Length of one round");
  app.add_option("--rounds", rounds, "Rounds; the best is kept");
  CLI11_PARSE(app, argc, argv);
  const auto fp32 = sieve::bench::measure_fp32_peak(threads, seconds, rounds);
  const auto int8 = sieve::bench::measure_int8_peak(threads, seconds, rounds);
  nlohmann::json doc = {{"threads", threads},
                        {"fp32", {{"isa", fp32.isa}, {"gflops", fp32.gops}}},
                        {"int8", {{"isa", int8.isa}, {"gops", int8.gops}}}};
  std::cout << doc.dump(2) << '\n';
  return 0;
}
