#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

namespace sieve::bundle {

// The shared libraries loaded into this process, as the dynamic loader found
// them (the full dependency closure of the executable, plus anything opened
// with dlopen so far), in load order, without the executable itself.
std::vector<std::filesystem::path> loaded_libraries();

// glibc and the GCC runtime: present on every Debian system (their packages
// are Priority: required), and glibc must match the system's own loader, so
// a bundle never carries them.
bool is_system_runtime(std::string_view soname);

}  // namespace sieve::bundle
