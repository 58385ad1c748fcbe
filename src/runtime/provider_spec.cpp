#include "sieve/error.hpp"
#include "sieve/runtime_options.hpp"

namespace sieve {

ProviderSpec parse_provider_spec(const std::string& text) {
  ProviderSpec spec;
  const auto colon = text.find(':');
  spec.name = text.substr(0, colon);
  if (spec.name.empty()) throw Error(ErrorCode::kInvalidArgument, "empty execution provider name in \"" + text + "\"");
  if (colon == std::string::npos) return spec;
  std::size_t pos = colon + 1;
  while (pos <= text.size()) {
    const auto comma = text.find(',', pos);
    const std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw Error(ErrorCode::kInvalidArgument, "provider option \"" + item + "\" is not key=value in \"" + text + "\"");
    }
    spec.options[item.substr(0, eq)] = item.substr(eq + 1);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return spec;
}

}  // namespace sieve
