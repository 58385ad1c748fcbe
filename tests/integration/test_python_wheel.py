"""The Python package's wheel (scripts/build_wheel.sh: pip wheel, then
auditwheel repair) as a user gets it: installed into a new virtual
environment and run there with an empty environment, and run by the bare
Python 3 of a minimal Debian 12 root (scripts/make_debian_root.sh), neither
with a build tree in reach. Vectors equal `sieve embed`'s bit for bit."""
from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import uuid
import zipfile
from pathlib import Path

import numpy as np
import pytest

from conftest import MODEL, ROOT, run_sieve

TEXTS = ["A man is eating food.", "Ein Mann isst.", "Un homme mange une pomme de terre.", "naïve café ☕"]
# What the installed package runs: it prints the vectors as .npy on stdout.
SCRIPT = """
import io, sys
import numpy as np
import sieve
model = sieve.Embedder(sys.argv[1], threads=1)
buffer = io.BytesIO()
np.save(buffer, model.encode(sys.argv[2:]))
sys.stdout.buffer.write(buffer.getvalue())
"""


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory) -> Path:
    """SIEVE_WHEELHOUSE (scripts/test.sh builds it beside the fixtures), else built here."""
    given = os.environ.get("SIEVE_WHEELHOUSE")
    if given:
        return Path(given)
    out = tmp_path_factory.mktemp("wheelhouse")
    subprocess.run(["bash", str(ROOT / "scripts" / "build_wheel.sh"), str(out)], check=True, timeout=1200)
    return out


@pytest.fixture(scope="module")
def wheel(wheelhouse: Path) -> Path:
    wheels = list(wheelhouse.glob("sieve_embeddings-*-manylinux_*.whl"))
    assert len(wheels) == 1, f"expected one repaired wheel in {wheelhouse}: {wheels}"
    return wheels[0]


def cli_vectors() -> np.ndarray:
    return np.load(io.BytesIO(run_sieve("embed", "--model", str(MODEL), "--format", "npy", "--threads", "1",
                                        "--", *TEXTS).stdout))


def test_wheel_carries_its_libraries(wheel: Path):
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("sieve/_sieve.") and n.endswith(".so") for n in names)
    assert "sieve/libonnxruntime.so.1" in names
    assert {"sieve/__init__.py", "sieve/errors.py", "sieve/_sieve.pyi", "sieve/py.typed", "sieve/langchain.py",
            "sieve/llama_index.py", "sieve/ray.py", "sieve/spark.py", "sieve/_bulk.py"} <= set(names)
    bundled = [n for n in names if n.startswith("sieve_embeddings.libs/")]
    assert any("libpcre2" in n for n in bundled) and any("libutf8proc" in n for n in bundled), bundled


def test_installs_into_a_clean_venv_and_runs_with_an_empty_environment(wheel: Path, wheelhouse: Path,
                                                                       tmp_path: Path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    # The new environment's own pip, from the wheelhouse only.
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-index", "--find-links",
                    str(wheelhouse / "deps"), str(wheel)], check=True, timeout=300)
    packages = list((venv / "lib").glob("python3*/site-packages/sieve"))
    assert len(packages) == 1
    module = next(packages[0].glob("_sieve*.so"))
    dynamic = subprocess.run(["readelf", "-d", str(module)], capture_output=True, text=True, check=True).stdout
    assert "$ORIGIN" in dynamic and str(ROOT) not in dynamic, dynamic
    # No variable at all: no PYTHONPATH, no LD_LIBRARY_PATH, no HOME; run
    # from elsewhere, so nothing of the source or build tree is found.
    result = subprocess.run([str(venv / "bin" / "python"), "-I", "-c", SCRIPT, str(MODEL), *TEXTS], env={},
                            cwd=tmp_path, capture_output=True, timeout=300)
    assert result.returncode == 0, result.stderr.decode()
    assert np.array_equal(np.load(io.BytesIO(result.stdout)), cli_vectors())
    loaded = subprocess.run([str(venv / "bin" / "python"), "-I", "-c",
                             "import sieve, sys; sys.stdout.write(open('/proc/self/maps').read())"],
                            env={}, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert loaded.returncode == 0, loaded.stderr
    libraries = {line.split()[-1] for line in loaded.stdout.splitlines() if ".so" in line}
    assert not [lib for lib in libraries if lib.startswith(str(ROOT))], "libraries loaded from the source tree"


def test_runs_in_a_minimal_debian_12_root(wheel: Path, wheelhouse: Path, tmp_path: Path):
    root_dir = os.environ.get("SIEVE_DEBIAN_ROOT")
    if not root_dir:
        pytest.skip("SIEVE_DEBIAN_ROOT is not set (scripts/test.sh makes one with scripts/make_debian_root.sh)")
    root = Path(root_dir)
    assert (root / ".sieve-debian-root").is_file() and (root / "usr/bin/python3").exists(), \
        f"{root} is not a root made by scripts/make_debian_root.sh"
    inside = Path("/tmp") / f"sieve-wheel-{uuid.uuid4().hex[:8]}"
    target = root / inside.relative_to("/")
    try:
        # The wheel and NumPy's unpacked where that root's Python looks (pip
        # itself is not there), and the model beside them.
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", "--target",
                        str(target / "site"), str(wheel), *map(str, (wheelhouse / "deps").glob("numpy-*.whl"))],
                       check=True, timeout=300)
        shutil.copytree(MODEL, target / "model")
        (target / "run.py").write_text(SCRIPT)
        command = " ".join(f"'{a}'" for a in [f"{inside}/run.py", f"{inside}/model", *TEXTS])
        script = (f'mount -t proc proc "{root}/proc" && exec chroot "{root}" /usr/bin/env -i '
                  f'PYTHONPATH={inside}/site /usr/bin/python3 {command}')
        result = subprocess.run(["unshare", "--mount", "--fork", "sh", "-c", script], capture_output=True,
                                timeout=300)
        assert result.returncode == 0, result.stderr.decode()
        assert np.array_equal(np.load(io.BytesIO(result.stdout)), cli_vectors())
    finally:
        shutil.rmtree(target, ignore_errors=True)
