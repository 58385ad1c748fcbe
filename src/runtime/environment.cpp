#include "runtime/environment.hpp"

#include <algorithm>
#include <mutex>
#include <string_view>

#include "logging.hpp"
#include "runtime/ort_api.hpp"
#include "sieve/error.hpp"
#include "sieve/runtime_options.hpp"

namespace sieve::runtime {
namespace {

struct EnvironmentState {
  std::mutex mutex;
  OrtPtr<OrtEnv> env;
  int shared_pool_threads = 0;  // 0: created without global thread pools
};

// Never destroyed before the sessions that static objects may still hold;
// released at exit like any static, before the logger it writes to.
EnvironmentState& environment_state() {
  (void)logger();
  static EnvironmentState state;
  return state;
}

// ONNX Runtime's own messages go through Sieve's logger, which escapes
// control characters: they quote the model's node names, which a model file
// may fill with escape sequences, and ORT's writer would print them raw (in
// colour). Its errors are warnings here: the Error Sieve throws says the same.
void log_from_ort(void* /*param*/, OrtLoggingLevel severity, const char* /*category*/, const char* /*logid*/,
                  const char* /*code_location*/, const char* message) {
  const auto level = severity >= ORT_LOGGING_LEVEL_FATAL     ? spdlog::level::err
                     : severity >= ORT_LOGGING_LEVEL_WARNING ? spdlog::level::warn
                     : severity >= ORT_LOGGING_LEVEL_INFO    ? spdlog::level::info
                                                             : spdlog::level::debug;
  std::string_view text = message != nullptr ? message : "";
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  logger().log(level, "onnxruntime: {}", text);
}

}  // namespace

OrtEnv* environment() {
  auto& state = environment_state();
  const std::lock_guard lock(state.mutex);
  if (!state.env) {
    OrtEnv* raw = nullptr;
    check(ort().CreateEnvWithCustomLogger(log_from_ort, nullptr, ORT_LOGGING_LEVEL_ERROR, "sieve", &raw),
          "creating the ONNX Runtime environment");
    state.env.reset(raw);
  }
  return state.env.get();
}

OrtEnv* environment_with_shared_pool(int intra_op_threads, int inter_op_threads) {
  auto& state = environment_state();
  const std::lock_guard lock(state.mutex);
  if (state.env) {
    if (state.shared_pool_threads == 0) {
      throw Error(ErrorCode::kInvalidArgument,
                  "the shared thread pool was asked for after a model had been loaded without it: ONNX Runtime has "
                  "one environment per process, so choose the shared pool before loading the first model");
    }
    return state.env.get();
  }
  const int intra = intra_op_threads > 0 ? intra_op_threads : physical_core_count();
  OrtThreadingOptions* raw_threading = nullptr;
  check(ort().CreateThreadingOptions(&raw_threading), "creating threading options");
  const std::unique_ptr<OrtThreadingOptions, void (*)(OrtThreadingOptions*)> threading(
      raw_threading, [](OrtThreadingOptions* p) { ort().ReleaseThreadingOptions(p); });
  check(ort().SetGlobalIntraOpNumThreads(threading.get(), intra), "setting the shared intra-op threads");
  check(ort().SetGlobalInterOpNumThreads(threading.get(), std::max(1, inter_op_threads)),
        "setting the shared inter-op threads");
  OrtEnv* raw = nullptr;
  check(ort().CreateEnvWithCustomLoggerAndGlobalThreadPools(log_from_ort, nullptr, ORT_LOGGING_LEVEL_ERROR, "sieve",
                                                            threading.get(), &raw),
        "creating the ONNX Runtime environment with shared thread pools");
  state.env.reset(raw);
  state.shared_pool_threads = intra;
  return state.env.get();
}

int shared_pool_threads() {
  auto& state = environment_state();
  const std::lock_guard lock(state.mutex);
  return state.shared_pool_threads;
}

std::string onnxruntime_version() {
  return OrtGetApiBase()->GetVersionString();
}

}  // namespace sieve::runtime
