"""The C ABI as it is installed (build/stage, from `cmake --install`): the
header compiles as C99 and C++, libsieve.so has a versioned SONAME and exports
exactly the functions sieve.h declares, and user programs build against it
through find_package(sieve) (shared and static) and pkg-config."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import MODEL, ROOT, run_sieve

STAGE = Path(os.environ.get("SIEVE_STAGE", ROOT / "build" / "stage"))
HEADER = ROOT / "include" / "sieve.h"
CONSUMER = ROOT / "tests" / "capi" / "consumer"

pytestmark = pytest.mark.skipif(not (STAGE / "lib" / "libsieve.so").exists(),
                                reason=f"{STAGE} has no libsieve.so: run `cmake --install build --prefix build/stage`")


def declared_functions() -> set[str]:
    text = HEADER.read_text()
    return set(re.findall(r"SIEVE_API\s+[^;(]*?\b(sieve_\w+)\s*\(", text))


def exported_functions(library: Path) -> set[str]:
    out = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def test_the_shared_library_exports_exactly_the_header_functions():
    declared = declared_functions()
    assert len(declared) > 30, "the header parse found too few functions"
    exported = exported_functions(STAGE / "lib" / "libsieve.so")
    assert exported == declared, (f"exported but not declared: {sorted(exported - declared)}; "
                                  f"declared but not exported: {sorted(declared - exported)}")


def test_the_shared_library_has_a_versioned_soname():
    out = subprocess.run(["readelf", "-d", str(STAGE / "lib" / "libsieve.so")], capture_output=True, text=True,
                         check=True).stdout
    soname = re.search(r"Library soname: \[(.*?)\]", out)
    assert soname and soname.group(1) == "libsieve.so.0"
    assert (STAGE / "lib" / "libsieve.so.0").is_symlink()
    assert (STAGE / "lib" / "libsieve.a").is_file()


@pytest.mark.parametrize("compiler,flags", [
    ("gcc", ["-x", "c", "-std=c99"]),
    ("gcc", ["-x", "c", "-std=c11"]),
    ("g++", ["-x", "c++", "-std=c++11"]),
    ("g++", ["-x", "c++", "-std=c++20"]),
    ("clang", ["-x", "c", "-std=c99"]),
])
def test_the_header_compiles_cleanly_alone(tmp_path, compiler, flags):
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} is not installed")
    source = tmp_path / "include_only.txt"
    source.write_text("#include <sieve.h>\nint main(void) { return sieve_abi_version() == SIEVE_ABI_VERSION ? 0 : 1; }\n")
    subprocess.run([compiler, *flags, "-Wall", "-Wextra", "-Wpedantic", "-Werror", f"-I{STAGE / 'include'}",
                    "-fsyntax-only", str(source)], check=True, capture_output=True)


def reference_first_values(texts: list[str]) -> list[tuple[float, float]]:
    lines = run_sieve("embed", "--model", str(MODEL), "--format", "jsonl", *texts).stdout.decode().splitlines()
    return [tuple(json.loads(line)[:2]) for line in lines]


def check_consumer_output(output: str, texts: list[str]) -> None:
    rows = [line.split() for line in output.splitlines()]
    assert len(rows) == len(texts)
    for row, (first, second) in zip(rows, reference_first_values(texts)):
        assert row[0] == "384"
        assert float(row[1]) == pytest.approx(first, abs=2e-6)
        assert float(row[2]) == pytest.approx(second, abs=2e-6)
        assert float(row[4]) == pytest.approx(1.0, abs=1e-3)


TEXTS = ["A man is eating food.", "The new movie is awesome"]


@pytest.mark.skipif(not MODEL.exists(), reason="models/all-MiniLM-L6-v2 is missing")
def test_a_project_finds_the_package_with_cmake_and_links_shared_and_static(tmp_path):
    build = tmp_path / "build"
    subprocess.run(["cmake", "-S", str(CONSUMER), "-B", str(build), "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={STAGE}"],
                   check=True, capture_output=True)
    subprocess.run(["cmake", "--build", str(build)], check=True, capture_output=True)
    for program in ("consumer_shared", "consumer_static"):
        result = subprocess.run([str(build / program), str(MODEL), *TEXTS], capture_output=True, text=True,
                                env={"PATH": os.environ["PATH"]}, timeout=300)
        assert result.returncode == 0, result.stderr
        check_consumer_output(result.stdout, TEXTS)


@pytest.mark.skipif(not MODEL.exists(), reason="models/all-MiniLM-L6-v2 is missing")
def test_a_program_builds_with_pkg_config(tmp_path):
    env = {**os.environ, "PKG_CONFIG_PATH": str(STAGE / "lib" / "pkgconfig")}
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "sieve"], capture_output=True, text=True, env=env,
                           check=True).stdout.split()
    program = tmp_path / "consumer"
    subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", str(CONSUMER / "consumer.c"), "-o", str(program),
                    *flags], check=True, capture_output=True)
    # No LD_LIBRARY_PATH: the pkg-config rpath finds libsieve.so, whose own rpath finds ONNX Runtime.
    result = subprocess.run([str(program), str(MODEL), *TEXTS], capture_output=True, text=True,
                            env={"PATH": os.environ["PATH"]}, timeout=300)
    assert result.returncode == 0, result.stderr
    check_consumer_output(result.stdout, TEXTS)
