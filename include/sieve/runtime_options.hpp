#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace sieve {

enum class GraphOptimization { kDisabled, kBasic, kExtended, kAll };

// An execution provider by name ("cpu", "cuda", "tensorrt", "openvino",
// "dnnl", "coreml", "directml") with its provider options.
struct ProviderSpec {
  std::string name;
  std::map<std::string, std::string> options;
};

// How an ONNX Runtime session is created. Defaults suit a CPU server.
struct RuntimeOptions {
  int intra_op_threads = 0;  // 0: one per physical core
  int inter_op_threads = 1;
  GraphOptimization graph_optimization = GraphOptimization::kAll;
  // Tried in order; CPU always ends the list as the fallback.
  std::vector<ProviderSpec> providers;
  // Fail instead of skipping a provider the loaded ONNX Runtime lacks.
  bool strict_providers = false;
  // Memory patterns plan buffers per input shape; with text of every length
  // they only grow, so they are off unless asked for.
  bool memory_pattern = false;
  bool cpu_arena = true;
  // Whether the session's intra-op threads spin while they wait for work:
  // lower latency on an otherwise idle machine, but the spinning holds cores
  // that tokenization, the HTTP server or other processes could use (see
  // bench/RESULTS.md, "Session settings"). With shared_thread_pool the shared
  // pools always spin, as ONNX Runtime sets them up.
  bool spinning = true;
  // Run on ONNX Runtime's process-wide thread pools, shared by every session
  // created with this flag, instead of the session's own threads, so that
  // several models loaded at once do not oversubscribe the cores. The first
  // such session sizes the pools from intra_op_threads / inter_op_threads;
  // it must come before any session without the flag, since ORT has one
  // environment per process and the pools belong to it.
  bool shared_thread_pool = false;
};

// Parses "cpu", "cuda:device_id=1" or "tensorrt" as given on a command line.
ProviderSpec parse_provider_spec(const std::string& text);
int physical_core_count();

// The most threads one thread-count option may ask for: four per hardware
// thread of the machine (std::thread::hardware_concurrency()). More cannot
// run faster and only costs memory (each thread's stack and buffers).
int max_thread_count();
// Every thread count Sieve takes (the command line's --threads, the C ABI's
// and the bindings' options, RuntimeOptions) goes through here: throws
// Error (kInvalidArgument) naming `option` and the limit unless
// 0 <= threads <= max_thread_count(). 0 means the default (one per core).
void check_thread_count(long long threads, std::string_view option);

}  // namespace sieve
