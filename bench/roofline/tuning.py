#!/usr/bin/env python3
"""ONNX Runtime session settings against Sieve's defaults, one run, interleaved.

    .venv/bin/python bench/roofline/tuning.py [--model models/all-MiniLM-L6-v2] [--rounds 5]

Each setting changes one thing from Sieve's session (2 intra-op threads, one
inter-op thread, sequential execution, spinning allowed, CPU arena on, memory
patterns off, SkipLayerNormalization fusion off) and is timed on the same
inputs in every round, settings in a fresh random order per round; medians
and the ratio to Sieve's settings.
Shapes: batch 1 x 16 and 1 x 128 tokens (latency) and 32 x 128 (throughput),
every token real. The timing runs through ONNX Runtime's Python API, the same
library and version Sieve links.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

import onnxruntime as ort

sys.path.insert(0, str(Path(__file__).resolve().parent))
from roofline import ROOT, feed_for, time_run  # noqa: E402  (sibling module)

SETTINGS = {
    "sieve (2 threads, spinning, arena, no memory pattern, no SkipLayerNorm fusion)": {},
    "SkipLayerNorm fusion on (ONNX Runtime's default)": {"skip_layer_norm": True},
    "no spinning": {"spin": False},
    "memory pattern on": {"mem_pattern": True},
    "CPU arena off": {"arena": False},
    "1 intra-op thread": {"threads": 1},
    "parallel execution, 2 inter-op threads": {"parallel": True},
}
SHAPES = [(1, 16), (1, 128), (32, 128)]


def make_session(model: Path, threads: int = 2, spin: bool = True, mem_pattern: bool = False, arena: bool = True,
                 parallel: bool = False, skip_layer_norm: bool = False) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 2 if parallel else 1
    options.execution_mode = ort.ExecutionMode.ORT_PARALLEL if parallel else ort.ExecutionMode.ORT_SEQUENTIAL
    options.enable_mem_pattern = mem_pattern
    options.enable_cpu_mem_arena = arena
    options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
    if not skip_layer_norm:
        options.add_session_config_entry("optimization.disable_specified_optimizers", "SkipLayerNormFusion")
    options.log_severity_level = 3
    return ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=ROOT / "models/all-MiniLM-L6-v2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--min-seconds", type=float, default=0.4)
    args = ap.parse_args(argv)

    sessions = {name: make_session(args.model / "model.onnx", **kw) for name, kw in SETTINGS.items()}
    times = {(name, shape): [] for name in sessions for shape in SHAPES}
    inputs = {shape: feed_for(next(iter(sessions.values())), *shape, 30522) for shape in SHAPES}
    for name, s in sessions.items():
        for shape in SHAPES:
            s.run(None, inputs[shape])
    rng = random.Random(7)
    for _ in range(args.rounds):
        order = list(sessions)
        rng.shuffle(order)
        for shape in SHAPES:
            for name in order:
                times[(name, shape)].append(time_run(sessions[name], inputs[shape], args.min_seconds))
    base = next(iter(sessions))
    print(f"ONNX Runtime {ort.__version__}, {args.model}, {args.rounds} rounds, medians (ms per run; "
          "x: speed relative to Sieve's settings, above 1 is faster)\n")
    print("| setting | " + " | ".join(f"{b} x {n}" for b, n in SHAPES) + " |")
    print("|---|" + "---:|" * len(SHAPES))
    for name in sessions:
        cells = []
        for shape in SHAPES:
            ms = statistics.median(times[(name, shape)]) * 1e3
            ratio = statistics.median(times[(base, shape)]) * 1e3 / ms
            cells.append(f"{ms:.2f} ({ratio:.2f}x)")
        print(f"| {name} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
