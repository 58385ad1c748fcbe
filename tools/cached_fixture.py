"""What the exported-model fixture scripts (make_splade_fixture.py,
make_colbert_fixture.py, make_bge_m3_fixture.py) share: a fixture is made
once per key (a hash of its sources and inputs) in CACHE/NAME/KEY, atomically
(a temporary sibling renamed into place, earlier keys removed), and copied
from there into OUT/NAME, which a stamp keeps from being copied again."""
from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable, Iterable

ROOT = Path(__file__).resolve().parent.parent
# Every fixture depends on the export tool and the pinned versions.
COMMON_SOURCES = ("tools/cached_fixture.py", "tools/requirements-export.txt", "scripts/versions.sh",
                  "tools/pyproject.toml")


def key(tag: str, sources: Iterable[str], extra: Iterable[bytes] = ()) -> str:
    """A short hash of `tag`, the export tool's sources, COMMON_SOURCES, `sources`
    (paths relative to the repository) and any `extra` bytes."""
    h = hashlib.sha256(tag.encode() + b"\n")
    for rel in (*sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tools" / "sieve_tools").glob("*.py")),
                *COMMON_SOURCES, *sources):
        h.update(rel.encode() + b"\0" + (ROOT / rel).read_bytes())
    for data in extra:
        h.update(data)
    return h.hexdigest()[:16]


def made_once(cache: Path, fixture_key: str, build: Callable[[Path], None]) -> Path:
    """CACHE/KEY, made by `build(tmp)` when missing: `build` writes tmp/model."""
    final = cache / fixture_key
    if (final / "done").is_file():
        return final
    cache.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=cache))
    os.chmod(tmp, 0o755)
    try:
        build(tmp)
        (tmp / "done").write_text("")
        shutil.rmtree(final, ignore_errors=True)
        os.rename(tmp, final)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for old in cache.iterdir():  # earlier keys
        if old != final and not old.name.startswith("."):
            shutil.rmtree(old, ignore_errors=True)
    return final


def sieve_export(script: str, *args: str) -> None:
    """Runs this interpreter's `sieve-export` with `args`; a failure exits naming `script`."""
    done = subprocess.run([str(Path(sys.executable).parent / "sieve-export"), *args], capture_output=True, text=True,
                          timeout=900)
    if done.returncode != 0:
        sys.exit(f"{script}: sieve-export {' '.join(args[:1])} failed ({done.returncode}):\n{done.stderr[-4000:]}")


def default_cache() -> Path:
    return Path(os.environ.get("SIEVE_CACHE_DIR") or Path.home() / ".cache" / "sieve") / "fixtures"


def arguments(doc: str, name: str) -> argparse.ArgumentParser:
    """The scripts' common options: --out and --cache."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--out", required=True, type=Path, help=f"folder that receives {name}/")
    ap.add_argument("--cache", type=Path, default=None, help="cache folder (default: SIEVE_CACHE_DIR/fixtures)")
    return ap


def publish(made: Path, out: Path, name: str) -> int:
    """Copies made/model to OUT/NAME unless the stamp says it is there."""
    target = out / name
    stamp = target / ".key"
    if stamp.is_file() and stamp.read_text() == made.name:
        print(f"{name}: {target} is up to date")
        return 0
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(made / "model", target)
    stamp.write_text(made.name)
    print(f"{name}: wrote {target}")
    return 0
