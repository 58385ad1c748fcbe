#pragma once

#include <string>

struct OrtEnv;

namespace sieve::runtime {

// The process-wide ONNX Runtime environment, created on first use; ORT
// allows one per process and every session must share it. Created this way
// it has no global thread pools: every session makes its own threads.
OrtEnv* environment();

// The same environment, created (when it does not exist yet) with ORT's
// process-wide intra-op and inter-op thread pools, which sessions created
// with DisablePerSessionThreads share (CreateEnvWithGlobalThreadPools).
// Since there is only one environment, the first session to be created
// decides: this throws when the environment already exists without global
// pools. `intra_op_threads` <= 0 means one per physical core; the sizes of
// an existing pool are kept.
OrtEnv* environment_with_shared_pool(int intra_op_threads, int inter_op_threads);

// Intra-op threads of the shared pool; 0 while the environment has none.
int shared_pool_threads();

std::string onnxruntime_version();

}  // namespace sieve::runtime
