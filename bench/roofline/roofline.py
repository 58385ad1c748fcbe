#!/usr/bin/env python3
"""Roofline report: how close each variant of a model comes to the machine's
peak multiply-add throughput.

    .venv/bin/python bench/roofline/roofline.py --model models/all-MiniLM-L6-v2 \
        [--threads 2] [--batches 1 8 32 128] [--lengths 16 64 128 256] [--out build/roofline]

- The ceiling: build/sieve_roofline_peak (bench/roofline/peak.cpp) measures
  peak FP32 FMA and INT8 (VNNI) dot-product throughput on --threads threads.
- The work: the model's FLOPs at each batch x length, counted from the plain
  graph's shapes (ONNX shape inference with the input dimensions fixed): two
  per multiply-add of every MatMul and Gemm. Element-wise work (softmax,
  normalization, GELU) is left out, as rooflines of GEMM-bound models do; the
  fused and INT8 variants compute the same products, so one count serves all.
- The variants: the folder as it is (fp32: Sieve's default graph), O2
  (`sieve-export optimize --level O2`) and INT8 (`sieve-export quantize`,
  dynamic, per channel), each timed by ONNX Runtime's Python API, which is the
  same library and version Sieve links, on fixed-shape inputs (every token
  real), variants interleaved over --rounds rounds, medians.

Prints a Markdown table and writes roofline.json and roofline.svg (achieved
GFLOP/s against tokens per run, peak lines on top) into --out.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


# ---- FLOPs from the graph's shapes

def _dims(value) -> list[int | None]:
    return [d.dim_value if d.HasField("dim_value") else None for d in value.type.tensor_type.shape.dim]


def count_flops(onnx_file: Path, batch: int, length: int) -> dict:
    """FLOPs (2 per multiply-add) of the graph's MatMul and Gemm nodes for
    inputs of [batch, length]: {"total": int, "per_node": {name: int}}.
    Raises ValueError when a product's shapes cannot be inferred."""
    import onnx
    from onnx import shape_inference

    model = onnx.load(str(onnx_file), load_external_data=False)
    for value in model.graph.input:
        dims = value.type.tensor_type.shape.dim
        if len(dims) != 2:
            raise ValueError(f"input {value.name!r} has rank {len(dims)}, not [batch, sequence]")
        dims[0].dim_value, dims[1].dim_value = batch, length
    inferred = shape_inference.infer_shapes(model, data_prop=True)
    shapes: dict[str, list[int | None]] = {}
    for value in list(inferred.graph.input) + list(inferred.graph.value_info) + list(inferred.graph.output):
        shapes[value.name] = _dims(value)
    for tensor in inferred.graph.initializer:
        shapes[tensor.name] = list(tensor.dims)
    per_node: dict[str, int] = {}
    for node in inferred.graph.node:
        if node.op_type not in ("MatMul", "Gemm"):
            continue
        a, out = shapes.get(node.input[0]), shapes.get(node.output[0])
        if not a or not out or any(d is None for d in a + out):
            raise ValueError(f"{node.op_type} {node.name!r}: shapes not inferred ({a} -> {out})")
        # Gemm's A may be transposed: the inner dimension is the one A and Y do not share.
        inner = a[0] if node.op_type == "Gemm" and any(x.name == "transA" and x.i for x in node.attribute) else a[-1]
        per_node[node.name or node.output[0]] = 2 * math.prod(out) * inner
    return {"total": sum(per_node.values()), "per_node": per_node}


def bert_flops(config: dict, batch: int, length: int) -> int:
    """The same count from config.json alone (a BERT encoder without heads):
    Q, K, V and output projections, the FFN, and the two attention products."""
    h, i, layers = config["hidden_size"], config["intermediate_size"], config["num_hidden_layers"]
    tokens = batch * length
    per_layer = 2 * tokens * (4 * h * h + 2 * h * i) + 2 * 2 * batch * length * length * h
    return layers * per_layer


# ---- the ceiling

def measure_peak(binary: Path, threads: int, seconds: float = 0.5, rounds: int = 5) -> dict:
    result = subprocess.run([str(binary), "--threads", str(threads), "--seconds", str(seconds),
                             "--rounds", str(rounds)], check=True, capture_output=True, text=True)
    return json.loads(result.stdout)


# ---- variants and timing

def sieve_export(*args: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "tools"))
    subprocess.run([sys.executable, "-m", "sieve_tools", *args], check=True, env=env, capture_output=True)


def make_variants(model: Path, out: Path) -> dict[str, Path]:
    variants = {"fp32": model}
    o2, int8 = out / "o2", out / "int8"
    if not (o2 / "model.onnx").is_file():
        sieve_export("optimize", str(model), "--out", str(o2), "--level", "O2", "--allow-missing-fusions")
    if not (int8 / "model.onnx").is_file():
        sieve_export("quantize", str(model), "--out", str(int8), "--per-channel")
    variants["O2"], variants["int8"] = o2, int8
    return variants


def session(folder: Path, threads: int):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # As Sieve: no memory patterns (a plan per input shape only grows).
    options.enable_mem_pattern = False
    # As Sieve's CPU sessions: Add and LayerNormalization left unfused (src/runtime/session.cpp).
    options.add_session_config_entry("optimization.disable_specified_optimizers", "SkipLayerNormFusion")
    options.log_severity_level = 3
    return ort.InferenceSession(str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"])


def feed_for(sess, batch: int, length: int, vocab: int) -> dict:
    import numpy as np

    rng = np.random.default_rng(batch * 1000 + length)
    values = {"input_ids": rng.integers(1000, vocab, size=(batch, length)).astype(np.int64),
              "attention_mask": np.ones((batch, length), dtype=np.int64),
              "token_type_ids": np.zeros((batch, length), dtype=np.int64)}
    return {i.name: values[i.name] for i in sess.get_inputs()}


def time_run(sess, feed: dict, min_seconds: float) -> float:
    """Seconds per run: runs repeated for at least min_seconds (and twice)."""
    runs, start = 0, time.perf_counter()
    while True:
        sess.run(None, feed)
        runs += 1
        took = time.perf_counter() - start
        if took >= min_seconds and runs >= 2:
            return took / runs


def svg_plot(rows: list[dict], peak: dict, path: Path) -> None:
    """Achieved GFLOP/s (log) against tokens per run (log), a line per variant."""
    width, height, left, bottom, top, right = 720, 420, 70, 50, 20, 150
    tokens = sorted({r["tokens"] for r in rows})
    ys = [r["gflops"] for r in rows] + [peak["fp32"]["gflops"], peak["int8"]["gops"]]
    x0, x1 = math.log10(min(tokens)), math.log10(max(tokens))
    y0, y1 = math.log10(min(ys) / 1.5), math.log10(max(ys) * 1.5)

    def px(t: float) -> float:
        return left + (math.log10(t) - x0) / max(x1 - x0, 1e-9) * (width - left - right)

    def py(g: float) -> float:
        return height - bottom - (math.log10(g) - y0) / (y1 - y0) * (height - bottom - top)

    colors = {"fp32": "#1f77b4", "O2": "#2ca02c", "int8": "#d62728"}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
           f'font-size="12"><rect width="100%" height="100%" fill="white"/>']
    for label, value, color in (("FP32 peak", peak["fp32"]["gflops"], "#1f77b4"),
                                ("INT8 peak", peak["int8"]["gops"], "#d62728")):
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{py(value):.1f}" y2="{py(value):.1f}" '
                   f'stroke="{color}" stroke-dasharray="6 4"/>')
        out.append(f'<text x="{width - right + 6}" y="{py(value) + 4:.1f}" fill="{color}">{label} '
                   f'{value:.0f}</text>')
    for variant, color in colors.items():
        points = sorted((r["tokens"], r["gflops"]) for r in rows if r["variant"] == variant and r["length"] == 128)
        if points:
            path_d = " ".join(f"{'M' if i == 0 else 'L'}{px(t):.1f},{py(g):.1f}" for i, (t, g) in enumerate(points))
            out.append(f'<path d="{path_d}" fill="none" stroke="{color}" stroke-width="2"/>')
        for r in rows:
            if r["variant"] == variant:
                out.append(f'<circle cx="{px(r["tokens"]):.1f}" cy="{py(r["gflops"]):.1f}" r="3" fill="{color}"/>')
        y_label = top + 40 + 18 * list(colors).index(variant)
        out.append(f'<text x="{width - right + 6}" y="{y_label}" fill="{color}">{variant} (line: length 128)</text>')
    out.append(f'<line x1="{left}" x2="{width - right}" y1="{height - bottom}" y2="{height - bottom}" stroke="black"/>')
    out.append(f'<line x1="{left}" x2="{left}" y1="{top}" y2="{height - bottom}" stroke="black"/>')
    for t in tokens:
        out.append(f'<text x="{px(t):.1f}" y="{height - bottom + 16}" text-anchor="middle">{t}</text>')
    for exp in range(math.floor(y0), math.ceil(y1) + 1):
        for m in (1, 2, 5):
            g = m * 10 ** exp
            if y0 <= math.log10(g) <= y1:
                out.append(f'<text x="{left - 6}" y="{py(g) + 4:.1f}" text-anchor="end">{g:g}</text>')
    out.append(f'<text x="{(left + width - right) / 2}" y="{height - 10}" text-anchor="middle">tokens per run '
               f'(batch x length)</text>')
    out.append(f'<text x="14" y="{(top + height - bottom) / 2}" transform="rotate(-90 14 '
               f'{(top + height - bottom) / 2})" text-anchor="middle">achieved GFLOP/s</text>')
    out.append("</svg>")
    path.write_text("\n".join(out) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=ROOT / "models/all-MiniLM-L6-v2")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--batches", type=int, nargs="+", default=[1, 8, 32, 128])
    ap.add_argument("--lengths", type=int, nargs="+", default=[16, 64, 128, 256])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--min-seconds", type=float, default=0.3, help="per timing")
    ap.add_argument("--peak-binary", type=Path, default=ROOT / "build/sieve_roofline_peak")
    ap.add_argument("--out", type=Path, default=ROOT / "build/roofline")
    args = ap.parse_args(argv)

    args.out.mkdir(parents=True, exist_ok=True)
    config = json.loads((args.model / "config.json").read_text())
    peak = measure_peak(args.peak_binary, args.threads)
    print(f"peak on {args.threads} threads: FP32 {peak['fp32']['gflops']:.0f} GFLOP/s ({peak['fp32']['isa']}), "
          f"INT8 {peak['int8']['gops']:.0f} GOP/s ({peak['int8']['isa']})", flush=True)
    variants = make_variants(args.model, args.out)
    # A fused graph's contrib operators defeat ONNX shape inference; its
    # products are the plain encoder's, which config.json gives.
    try:
        count_flops(args.model / "model.onnx", 1, 16)
        flops_of = lambda b, n: count_flops(args.model / "model.onnx", b, n)["total"]  # noqa: E731
        flops_source = "graph shapes"
    except Exception:  # noqa: BLE001 - ONNX's own inference errors as well as ours
        flops_of = lambda b, n: bert_flops(config, b, n)  # noqa: E731
        flops_source = "config.json (the graph is fused)"
    print(f"FLOPs from {flops_source}", flush=True)
    sessions = {name: session(folder, args.threads) for name, folder in variants.items()}
    vocab = int(config.get("vocab_size", 30522))
    rows = []
    for batch in args.batches:
        for length in args.lengths:
            flops = flops_of(batch, length)
            feeds = {name: feed_for(s, batch, length, vocab) for name, s in sessions.items()}
            times: dict[str, list[float]] = {name: [] for name in sessions}
            for name, s in sessions.items():
                s.run(None, feeds[name])  # warm-up: first-run allocations
            for _ in range(args.rounds):
                for name, s in sessions.items():
                    times[name].append(time_run(s, feeds[name], args.min_seconds))
            for name in sessions:
                seconds = statistics.median(times[name])
                ceiling = peak["int8"]["gops"] if name == "int8" else peak["fp32"]["gflops"]
                gflops = flops / seconds / 1e9
                rows.append({"variant": name, "batch": batch, "length": length, "tokens": batch * length,
                             "gflop": flops / 1e9, "ms": seconds * 1e3, "gflops": gflops,
                             "fraction_of_peak": gflops / ceiling,
                             "fraction_of_fp32_peak": gflops / peak["fp32"]["gflops"]})
            line = "  ".join(f"{r['variant']} {r['gflops']:.0f} GFLOP/s ({r['fraction_of_peak']:.0%})"
                             for r in rows[-len(sessions):])
            print(f"batch {batch:>3} x {length:>3}: {flops / 1e9:7.2f} GFLOP  {line}", flush=True)

    doc = {"model": str(args.model), "threads": args.threads, "peak": peak, "rows": rows, "flops": flops_source,
           "onnxruntime": __import__("onnxruntime").__version__}
    (args.out / "roofline.json").write_text(json.dumps(doc, indent=2) + "\n")
    svg_plot(rows, peak, args.out / "roofline.svg")
    print("\n| batch x length | GFLOP | " + " | ".join(f"{v} GFLOP/s (of peak)" for v in sessions) +
          " | INT8 / fp32 |")
    print("|---|---:|" + "---:|" * len(sessions) + "---:|")
    for batch in args.batches:
        for length in args.lengths:
            cells = {r["variant"]: r for r in rows if r["batch"] == batch and r["length"] == length}
            ratio = cells["fp32"]["ms"] / cells["int8"]["ms"]
            print(f"| {batch} x {length} | {cells['fp32']['gflop']:.2f} | " +
                  " | ".join(f"{cells[v]['gflops']:.0f} ({cells[v]['fraction_of_peak']:.0%})" for v in sessions) +
                  f" | {ratio:.2f}x |")
    print(f"\nwrote {args.out / 'roofline.json'} and {args.out / 'roofline.svg'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
