#!/usr/bin/env python3
"""A corpus of natural English texts for the variant accuracy report.

Why: the parity corpus (tools/build_corpus.py) is built to break tokenizers:
word lists, scripts, emoji and near-duplicate lines. Its nearest neighbours
are near-ties, so a top-10 overlap on it moves even for variants whose
cosine to FP32 is 1.00000. Search runs on prose, so the report also uses
prose: the short descriptions of Debian's packages (from apt's own cache,
present on any Debian machine) and the first paragraph of the docstrings of
Python's standard library. Deterministic: the same machine gives the same file.

    python bench/variants/natural_corpus.py --out corpus-natural.txt [--count 4000]
"""
from __future__ import annotations

import argparse
import ast
import random
import re
import subprocess
import sys
import sysconfig
from pathlib import Path


def debian_descriptions() -> list[str]:
    dump = subprocess.run(["apt-cache", "dumpavail"], capture_output=True, text=True, check=True).stdout
    found = {line[len("Description: "):].strip() for line in dump.splitlines() if line.startswith("Description: ")}
    # Transitional and dummy packages all read alike.
    return sorted(t for t in found if len(t.split()) >= 4 and not re.search(r"transitional|dummy package", t, re.I))


def stdlib_docstrings() -> list[str]:
    texts = set()
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).rglob("*.py")):
        if "test" in path.parts or "site-packages" in path.parts:
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef, ast.Module)):
                doc = ast.get_docstring(node)
                if not doc:
                    continue
                paragraph = " ".join(doc.split("\n\n")[0].split())
                if 6 <= len(paragraph.split()) <= 80 and not paragraph.startswith(("::", ">>>")):
                    texts.add(paragraph)
    return sorted(texts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--count", type=int, default=4000, help="texts in all, half from each source")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    debian, python = debian_descriptions(), stdlib_docstrings()
    half = args.count // 2
    if len(debian) < half or len(python) < args.count - half:
        print(f"too few texts: {len(debian)} descriptions, {len(python)} docstrings", file=sys.stderr)
        return 1
    texts = rng.sample(debian, half) + rng.sample(python, args.count - half)
    rng.shuffle(texts)
    args.out.write_text("".join(t + "\n" for t in texts), encoding="utf-8")
    print(f"{args.out}: {len(texts)} texts ({half} Debian package descriptions, {args.count - half} "
          f"Python docstrings)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
