#include "sieve/bundle.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>  // renameat2 (glibc, _GNU_SOURCE)

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>

#include "bundle/elf_rpath.hpp"
#include "bundle/loaded_libraries.hpp"
#include "sieve/error.hpp"
#include "sieve/registry.hpp"

namespace fs = std::filesystem;

namespace sieve {
namespace {

constexpr const char* kExecutableRpath = "$ORIGIN/../lib";
constexpr const char* kLibraryRpath = "$ORIGIN";
constexpr const char* kLibsieveSoname = "libsieve.so.0";

[[noreturn]] void fail_io(const fs::path& path, const std::string& what, const std::error_code& ec) {
  throw Error(ErrorCode::kRuntime, path.string() + ": " + what + ": " + ec.message());
}

// Removes the staging folder unless the bundle was moved into place.
class StagingFolder {
 public:
  explicit StagingFolder(fs::path path) : path_(std::move(path)) {
    std::error_code ec;
    fs::remove_all(path_, ec);
    if (!fs::create_directories(path_, ec) || ec) fail_io(path_, "cannot create", ec);
  }
  StagingFolder(const StagingFolder&) = delete;
  StagingFolder& operator=(const StagingFolder&) = delete;
  ~StagingFolder() {
    std::error_code ec;
    if (!placed_) fs::remove_all(path_, ec);
  }
  [[nodiscard]] const fs::path& path() const { return path_; }
  void placed() { placed_ = true; }

 private:
  fs::path path_;
  bool placed_ = false;
};

fs::path running_executable() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) fail_io("/proc/self/exe", "cannot tell which program is running", ec);
  return exe;
}

fs::path find_libsieve(const BundleOptions& options, const fs::path& executable) {
  std::error_code ec;
  if (!options.libsieve.empty()) {
    if (!fs::is_regular_file(options.libsieve, ec))
      throw Error(ErrorCode::kNotFound, options.libsieve.string() + ": no such library");
    return options.libsieve;
  }
  const fs::path dir = executable.parent_path();
  for (const fs::path& candidate : {dir / kLibsieveSoname, dir / ".." / "lib" / kLibsieveSoname}) {
    if (fs::is_regular_file(candidate, ec)) return candidate;
  }
  throw Error(ErrorCode::kNotFound, std::string(kLibsieveSoname) + " is neither next to " + executable.string() +
                                        " nor in ../lib: pass its path with --libsieve");
}

std::uintmax_t copy_real_file(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::create_directories(to.parent_path(), ec);
  if (ec) fail_io(to.parent_path(), "cannot create", ec);
  // copy_file follows symbolic links: the bundle holds real files.
  fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
  if (ec) fail_io(from, "cannot copy to " + to.string(), ec);
  return fs::file_size(to);
}

std::uintmax_t copy_model(const fs::path& from, const fs::path& to) {
  std::uintmax_t bytes = 0;
  std::error_code ec;
  fs::create_directories(to, ec);
  if (ec) fail_io(to, "cannot create", ec);
  for (fs::recursive_directory_iterator it(from, fs::directory_options::follow_directory_symlink, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (it.depth() > 8) throw Error(ErrorCode::kInvalidInput, from.string() + ": folders nest too deep (a link loop?)");
    // Lexically: fs::relative resolves symbolic links, and a model folder of
    // links (Hugging Face's cache is one) would map its files outside `to`.
    const fs::path target = to / it->path().lexically_relative(from);
    if (it->is_directory(ec)) {
      fs::create_directories(target, ec);  // empty ones too: modules.json may name them
      if (ec) fail_io(target, "cannot create", ec);
    } else if (it->is_regular_file(ec)) {
      bytes += copy_real_file(it->path(), target);
    }
  }
  if (ec) fail_io(from, "cannot list", ec);
  return bytes;
}

// ONNX Runtime's licence and notices, when its distribution folder has them.
void copy_onnxruntime_notices(const fs::path& library, const fs::path& bundle) {
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(library, ec).parent_path().parent_path();
  for (const char* name : {"LICENSE", "ThirdPartyNotices.txt", "VERSION_NUMBER", "Privacy.md"}) {
    if (fs::is_regular_file(root / name, ec)) copy_real_file(root / name, bundle / "licenses" / "onnxruntime" / name);
  }
}

void write_readme(const fs::path& bundle, const std::string& model) {
  std::ofstream out(bundle / "README.txt");
  out << "A self-contained Sieve bundle, made by `sieve bundle`.\n\n"
         "Run it from anywhere, with no installation:\n\n"
         "  bin/sieve embed --model models/"
      << model
      << " \"some text\"\n"
         "  bin/sieve serve --models models\n\n"
         "bin/sieve finds its libraries in lib/ through an $ORIGIN-relative rpath.\n"
         "lib/libsieve.so is the C ABI (include/sieve.h) for programs in C, Go or Zig.\n"
         "glibc and libstdc++ come from the system (Debian 12 or newer).\n";
  if (!out.flush()) throw Error(ErrorCode::kRuntime, (bundle / "README.txt").string() + ": cannot write");
}

// Moves the finished bundle into place. An existing one is swapped out
// atomically and then deleted, so `out` is always either old or new.
void place(const fs::path& staging, const fs::path& out, bool replace) {
  std::error_code ec;
  const bool exists = fs::exists(fs::symlink_status(out, ec));
  if (!exists) {
    fs::rename(staging, out, ec);
    if (ec) fail_io(out, "cannot move the bundle into place", ec);
    return;
  }
  if (!replace) throw Error(ErrorCode::kInvalidArgument, out.string() + ": already exists (--force replaces it)");
  if (renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, out.c_str(), RENAME_EXCHANGE) != 0) {
    fail_io(out, "cannot swap in the new bundle", std::error_code(errno, std::generic_category()));
  }
  fs::remove_all(staging, ec);  // now the old bundle
}

}  // namespace

BundleResult make_bundle(const BundleOptions& options) {
  if (options.out.empty()) throw Error(ErrorCode::kInvalidArgument, "no output folder given");
  (void)detect_model_kind(options.model);  // a clear error for anything but a model folder

  const fs::path out = fs::absolute(options.out).lexically_normal();
  std::error_code ec;
  if (fs::exists(fs::symlink_status(out, ec)) && !options.replace)
    throw Error(ErrorCode::kInvalidArgument, out.string() + ": already exists (--force replaces it)");
  fs::create_directories(out.parent_path(), ec);
  if (ec) fail_io(out.parent_path(), "cannot create", ec);

  std::string model_name = options.model_name;
  if (model_name.empty()) model_name = fs::absolute(options.model).lexically_normal().filename().string();
  if (model_name.empty() || model_name == "." || model_name == "..") model_name = "model";
  if (model_name.find('/') != std::string::npos)
    throw Error(ErrorCode::kInvalidArgument, "model name \"" + model_name + "\" must not contain '/'");

  StagingFolder staging(out.parent_path() / ("." + out.filename().string() + ".partial-" + std::to_string(getpid())));
  BundleResult result;
  result.out = out;
  result.model = fs::path("models") / model_name;

  const fs::path executable = running_executable();
  result.total_bytes += copy_real_file(executable, staging.path() / "bin" / "sieve");
  bundle::replace_rpath(staging.path() / "bin" / "sieve", kExecutableRpath);

  std::set<std::string> names;
  for (const fs::path& library : bundle::loaded_libraries()) {
    const std::string name = library.filename().string();
    if (bundle::is_system_runtime(name) || !names.insert(name).second) continue;
    const std::uintmax_t bytes = copy_real_file(library, staging.path() / "lib" / name);
    result.libraries.push_back({fs::path("lib") / name, bytes});
    result.total_bytes += bytes;
    if (name.starts_with("libonnxruntime.so")) copy_onnxruntime_notices(library, staging.path());
  }

  const fs::path libsieve = staging.path() / "lib" / kLibsieveSoname;
  const std::uintmax_t libsieve_bytes = copy_real_file(find_libsieve(options, executable), libsieve);
  bundle::replace_rpath(libsieve, kLibraryRpath);
  fs::create_symlink(kLibsieveSoname, staging.path() / "lib" / "libsieve.so", ec);
  if (ec) fail_io(staging.path() / "lib" / "libsieve.so", "cannot create", ec);
  result.libraries.push_back({fs::path("lib") / kLibsieveSoname, libsieve_bytes});
  result.total_bytes += libsieve_bytes;
#ifdef SIEVE_SOURCE_HEADER
  for (const fs::path& header :
       {executable.parent_path() / ".." / "include" / "sieve.h", fs::path(SIEVE_SOURCE_HEADER)}) {
    if (fs::is_regular_file(header, ec)) {
      result.total_bytes += copy_real_file(header, staging.path() / "include" / "sieve.h");
      break;
    }
  }
#endif

  result.total_bytes += copy_model(options.model, staging.path() / result.model);
  write_readme(staging.path(), model_name);

  place(staging.path(), out, options.replace);
  staging.placed();
  return result;
}

}  // namespace sieve
