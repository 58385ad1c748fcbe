#include "bundle/loaded_libraries.hpp"

#include <link.h>

#include <array>

namespace sieve::bundle {

std::vector<std::filesystem::path> loaded_libraries() {
  std::vector<std::filesystem::path> found;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto* out = static_cast<std::vector<std::filesystem::path>*>(data);
        // The executable has an empty name; the vDSO has a name but no file.
        std::error_code ec;
        if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0' &&
            std::filesystem::is_regular_file(info->dlpi_name, ec)) {
          out->emplace_back(info->dlpi_name);
        }
        return 0;
      },
      &found);
  return found;
}

bool is_system_runtime(std::string_view soname) {
  static constexpr std::array<std::string_view, 15> kPrefixes = {
      "ld-linux",     "libc.so",     "libm.so",   "libdl.so", "libpthread.so", "librt.so",
      "libresolv.so", "libutil.so",  "libanl.so", "libnss_",  "libmvec.so",    "libBrokenLocale.so",
      "libstdc++.so", "libgcc_s.so", "linux-vdso"};
  for (const auto prefix : kPrefixes) {
    if (soname.starts_with(prefix)) return true;
  }
  return false;
}

}  // namespace sieve::bundle
