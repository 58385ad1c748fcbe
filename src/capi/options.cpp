#include "capi/options.hpp"

#include <cstdint>
#include <cstring>

#include "capi/status.hpp"
#include "sieve/error.hpp"
#include "sieve/runtime_options.hpp"

namespace sieve::capi {
namespace {

RuntimeOptions runtime_options(const sieve_model_options& options) {
  RuntimeOptions runtime;
  runtime.intra_op_threads = options.intra_op_threads;
  runtime.inter_op_threads = options.inter_op_threads;
  runtime.strict_providers = options.strict_providers != 0;
  if (options.provider_count > 0 && options.providers == nullptr) {
    throw Error(ErrorCode::kInvalidArgument,
                "providers is NULL but provider_count is " + std::to_string(options.provider_count));
  }
  for (std::size_t i = 0; i < options.provider_count; ++i) {
    if (options.providers[i] == nullptr) {
      throw Error(ErrorCode::kInvalidArgument, "providers[" + std::to_string(i) + "] is NULL");
    }
    runtime.providers.push_back(parse_provider_spec(options.providers[i]));
  }
  return runtime;
}

void check(const sieve_model_options& options) {
  if (options.intra_op_threads < 0 || options.inter_op_threads < 0) {
    throw Error(ErrorCode::kInvalidArgument, "thread counts must not be negative");
  }
  check_thread_count(options.intra_op_threads, "intra_op_threads");
  check_thread_count(options.inter_op_threads, "inter_op_threads");
  if (options.batch_size == 0) throw Error(ErrorCode::kInvalidArgument, "batch_size must be positive");
  if (options.normalize < SIEVE_DEFAULT || options.normalize > 1) {
    throw Error(ErrorCode::kInvalidArgument,
                "normalize must be SIEVE_DEFAULT (-1), 0 or 1, not " + std::to_string(options.normalize));
  }
}

}  // namespace

sieve_model_options read_model_options(const sieve_model_options* options, const char* function) {
  sieve_model_options result;
  sieve_model_options_init(&result, sizeof result);
  if (options != nullptr) {
    read_versioned(options, options->struct_size, &result, sizeof result, function, "sieve_model_options");
  }
  // A caller's out-of-range enum value may not even be loaded as the enum
  // type in C++ (undefined behaviour): check it as the integer it is.
  static_assert(sizeof(sieve_model_kind) == sizeof(std::int32_t));
  std::int32_t kind = 0;
  std::memcpy(&kind, &result.kind, sizeof kind);
  if (kind != SIEVE_KIND_AUTO && kind != SIEVE_KIND_EMBEDDING && kind != SIEVE_KIND_RERANKER &&
      kind != SIEVE_KIND_SPARSE && kind != SIEVE_KIND_MULTI_VECTOR) {
    throw CapiError(SIEVE_INVALID_ARGUMENT, std::string(function) + ": unknown model kind " + std::to_string(kind));
  }
  check(result);
  return result;
}

EmbedderOptions embedder_options(const sieve_model_options& options) {
  EmbedderOptions result;
  result.runtime = runtime_options(options);
  if (options.normalize != SIEVE_DEFAULT) result.normalize = options.normalize != 0;
  if (options.pooling != nullptr) result.pooling = parse_pooling(options.pooling);
  if (options.max_length != 0) result.max_length = options.max_length;
  result.batch_size = options.batch_size;
  if (options.dimensions != 0) result.dimensions = options.dimensions;
  if (options.prompt_name != nullptr) result.prompt_name = std::string(options.prompt_name);
  result.invalid_utf8 = options.replace_invalid_utf8 != 0 ? InvalidUtf8::kReplace : InvalidUtf8::kError;
  return result;
}

RerankerOptions reranker_options(const sieve_model_options& options) {
  RerankerOptions result;
  result.runtime = runtime_options(options);
  if (options.max_length != 0) result.max_length = options.max_length;
  result.batch_size = options.batch_size;
  result.invalid_utf8 = options.replace_invalid_utf8 != 0 ? InvalidUtf8::kReplace : InvalidUtf8::kError;
  return result;
}

}  // namespace sieve::capi

extern "C" void sieve_model_options_init(sieve_model_options* options, size_t struct_size) {
  if (options == nullptr || struct_size < sizeof(std::size_t)) return;
  sieve_model_options defaults{};
  defaults.kind = SIEVE_KIND_AUTO;
  defaults.intra_op_threads = 0;
  defaults.inter_op_threads = 1;
  defaults.normalize = SIEVE_DEFAULT;
  defaults.batch_size = 32;
  sieve::capi::init_versioned(options, struct_size, &defaults, sizeof defaults);
}
