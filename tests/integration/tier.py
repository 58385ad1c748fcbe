"""The test tier and the sample seed, which scripts/test.sh sets.

SIEVE_TEST_TIER is "fast" (what CI runs: every kind of check, on samples
of the large inputs) or "full" (every input, at full depth). SIEVE_TEST_SEED
picks the samples: scripts/test.sh derives it from the commit, so successive
commits compare different samples and together cover every input, and prints
it, so that `scripts/test.sh --seed N` (or SIEVE_TEST_SEED=N with pytest)
draws the same samples again and reproduces a failure. Run by hand without
either, pytest uses the fast tier and the seed of the checked-out commit.
"""
from __future__ import annotations

import hashlib
import os
import random
import subprocess
from pathlib import Path
from typing import Sequence, TypeVar

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")


def _commit_seed() -> int:
    """The first 8 hex digits of HEAD as a number (scripts/test.sh does the same)."""
    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True, timeout=30).stdout.strip()
        return int(head[:8], 16)
    except (OSError, subprocess.SubprocessError, ValueError):
        return 0


TIER = os.environ.get("SIEVE_TEST_TIER", "fast")
if TIER not in ("fast", "full"):
    raise SystemExit(f"SIEVE_TEST_TIER must be fast or full, not {TIER!r}")
FULL = TIER == "full"
SEED = int(os.environ["SIEVE_TEST_SEED"]) if os.environ.get("SIEVE_TEST_SEED") else _commit_seed()


def fast_or_full(fast: T, full: T) -> T:
    """A size (rounds, queries, lines) that differs between the tiers."""
    return full if FULL else fast


def rng(salt: str) -> random.Random:
    """A generator for one test's draws: the seed and the test's own salt, so
    that tests draw independently of each other and of the order they run in."""
    digest = hashlib.sha256(f"{SEED}:{salt}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "little"))


def sample_indices(n: int, fast_count: int, salt: str) -> list[int]:
    """All of range(n) in the full tier; else fast_count of them drawn with
    the seed, in increasing order."""
    if FULL or fast_count >= n:
        return list(range(n))
    return sorted(rng(salt).sample(range(n), fast_count))


def sample(items: Sequence[T], fast_count: int, salt: str) -> list[T]:
    return [items[i] for i in sample_indices(len(items), fast_count, salt)]


def describe() -> str:
    if FULL:
        return "test tier: full (every input)"
    return (f"test tier: fast (sampled inputs), sample seed {SEED}; "
            f"draw the same samples again with scripts/test.sh --seed {SEED} or SIEVE_TEST_SEED={SEED}")
