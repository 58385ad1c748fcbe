#include <algorithm>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include "sieve/error.hpp"
#include "sieve/runtime_options.hpp"

namespace sieve {

// Hyper-threads share execution units; matrix kernels scale with physical
// cores, so that is ORT's default thread count here.
int physical_core_count() {
  std::set<std::pair<std::string, std::string>> cores;
  const unsigned logical = std::max(1U, std::thread::hardware_concurrency());
  for (unsigned cpu = 0; cpu < logical; ++cpu) {
    const std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    std::ifstream package(base + "physical_package_id");
    std::ifstream core(base + "core_id");
    std::string p;
    std::string c;
    if (!(package >> p) || !(core >> c)) return static_cast<int>(logical);
    cores.emplace(p, c);
  }
  return cores.empty() ? static_cast<int>(logical) : static_cast<int>(cores.size());
}

int max_thread_count() {
  return 4 * static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
}

void check_thread_count(long long threads, std::string_view option) {
  if (threads < 0) {
    throw Error(ErrorCode::kInvalidArgument,
                std::string(option) + " " + std::to_string(threads) + ": a thread count must not be negative");
  }
  const int limit = max_thread_count();
  if (threads > limit) {
    throw Error(ErrorCode::kInvalidArgument, std::string(option) + " " + std::to_string(threads) + ": at most " +
                                                 std::to_string(limit) +
                                                 " threads on this machine (4 per hardware thread, of which it has " +
                                                 std::to_string(limit / 4) + "); 0 takes one per core");
  }
}

}  // namespace sieve
