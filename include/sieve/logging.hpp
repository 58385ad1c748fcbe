#pragma once

#include <string_view>

namespace sieve {

// Sieve logs to standard error through one named logger ("sieve"), so that
// standard output stays free for results. Levels: trace, debug, info, warn,
// error, off.
void set_log_level(std::string_view level);

}  // namespace sieve
