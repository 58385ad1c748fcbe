#pragma once

#include <spdlog/spdlog.h>

namespace sieve {

// The library's logger; writes to standard error.
spdlog::logger& logger();

}  // namespace sieve
