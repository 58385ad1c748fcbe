"""Query/document pairs from Python docstrings, for retrieval quality checks.

A docstring whose summary line is followed by a blank line and a body gives
one pair: the summary is the query, the body the one relevant document.
tests/integration/test_search.py evaluates retrieval on the standard
library's pairs; tools/train_cross_encoder.py trains its reranker on pairs
from third-party packages, with every standard-library summary and body
excluded, so training and evaluation share no text.

Only the standard library's ast module is used: this runs in any of the
project's Python environments.
"""

from __future__ import annotations

import ast
import os
import random
import sysconfig
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Iterable, NamedTuple


class Pair(NamedTuple):
    key: str
    summary: str
    body: str


def candidates_in_file(path: Path, key_prefix: str) -> list[Pair]:
    """Every pair of the file whose lengths suit, repeated summaries included."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, ValueError, OSError, RecursionError):
        return []
    pairs = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            continue
        doc = ast.get_docstring(node)
        if not doc or "\n\n" not in doc:
            continue
        summary, body = doc.split("\n\n", 1)
        summary = " ".join(summary.split())
        body = " ".join(body.split())
        if not (5 <= len(summary.split()) <= 25) or len(body.split()) < 25:
            continue
        pairs.append(Pair(f"{key_prefix}.{node.name}:{node.lineno}", summary, body))
    return pairs


def first_of_each_summary(candidates: Iterable[Pair], seen: set[str]) -> list[Pair]:
    """The pairs whose summary is not in `seen` (a repeated summary is skipped), adding theirs."""
    pairs = []
    for pair in candidates:
        if pair.summary not in seen:
            seen.add(pair.summary)
            pairs.append(pair)
    return pairs


def pairs_in_file(path: Path, key_prefix: str, seen: set[str]) -> list[Pair]:
    """The file's usable pairs; `seen` holds summaries already taken (a repeated summary is skipped)."""
    return first_of_each_summary(candidates_in_file(path, key_prefix), seen)


def _candidates(job: tuple[Path, str]) -> list[Pair]:
    return candidates_in_file(*job)


def stdlib_pairs(limit: int | None = None, seed: int = 5) -> list[Pair]:
    """Pairs of the top-level standard-library modules, shuffled with `seed`."""
    seen: set[str] = set()
    pairs: list[Pair] = []
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py")):
        pairs.extend(pairs_in_file(path, path.stem, seen))
    random.Random(seed).shuffle(pairs)
    return pairs if limit is None else pairs[:limit]


def package_pairs(packages: Iterable[Path], exclude: Iterable[Pair], limit: int, seed: int = 11) -> list[Pair]:
    """Pairs from every .py file in the package folders, none sharing a summary or a body with `exclude`."""
    excluded_text = set()
    for pair in exclude:
        excluded_text.add(pair.summary)
        excluded_text.add(pair.body)
    jobs = []
    for package in packages:
        for path in sorted(package.rglob("*.py")):
            jobs.append((path, ".".join(path.relative_to(package.parent).with_suffix("").parts)))
    # Parsing thousands of files is the slow part: in parallel, then taken in
    # file order as one process would, so the pairs do not depend on the cores.
    with ProcessPoolExecutor(max(1, os.cpu_count() or 1)) as pool:
        per_file = list(pool.map(_candidates, jobs, chunksize=32))
    seen: set[str] = set()
    pairs: list[Pair] = []
    for candidates in per_file:
        for pair in first_of_each_summary(candidates, seen):
            if pair.summary not in excluded_text and pair.body not in excluded_text:
                pairs.append(pair)
    random.Random(seed).shuffle(pairs)
    return pairs[:limit]
