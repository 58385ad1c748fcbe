#include "runtime/environment.hpp"
#include "runtime/openvino_runtime.hpp"
#include "runtime/plugin_providers.hpp"
#include "runtime/session.hpp"
#include "sieve/version.hpp"

namespace sieve {

const char* version() noexcept {
  return SIEVE_VERSION_STRING;
}

RuntimeBuild runtime_build() {
  return {runtime::onnxruntime_version(), runtime::available_providers()};
}

std::vector<PluginProviderInfo> plugin_providers() {
  return runtime::list_plugins(runtime::environment());
}

OpenVinoRuntime openvino_runtime() {
  auto info = runtime::openvino_runtime_info(ProviderSpec{"openvino", {}});
  return {std::move(info.library), std::move(info.version), std::move(info.devices), std::move(info.error)};
}

}  // namespace sieve
