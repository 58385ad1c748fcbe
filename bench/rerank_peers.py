#!/usr/bin/env python3
"""Reranking benchmark: the candidate documents, and Sieve's Python peers.

Why: a reranker's cost is one query against N candidates of some length, so
the benchmark scores a fixed set of candidates in ONE call per repetition
and reports that call's latency (p50/p99) and pairs/s at several document
lengths.  Two subcommands:

  docs     writes one file per document length: --count documents of EXACTLY
           that many tokens (no special tokens) under the model's tokenizer,
           built deterministically from the words of tests/data/sentences.txt,
           and checks each count by tokenizing the finished document.
  measure  (default) times the Python peers on those files and prints ONE
           JSON object on stdout (progress on stderr):
             ort_python             onnxruntime + tokenizers + numpy: pairs
                                    encoded with longest_first truncation,
                                    ordered by token count, batches of
                                    --batch-size padded to their longest, one
                                    ORT run per batch, sigmoid of the logit
             sentence_transformers  CrossEncoder.predict(batch_size=--batch-size)
           with each peer's scores of the first call, so the report can check
           Sieve's scores against both.

    python bench/rerank_peers.py docs --model build/fixtures/cross-encoder-minilm-l6 --out-dir /tmp/docs
    python bench/rerank_peers.py measure --model build/fixtures/cross-encoder-minilm-l6 \\
        --query "..." --documents /tmp/docs/docs-32.txt,/tmp/docs/docs-128.txt > peers.json
"""

from __future__ import annotations

import os

# As in bench/peers.py: set before `tokenizers` is imported, so the Python
# loop tokenizes on one thread, as Sieve does; and never reach the network.
os.environ["TOKENIZERS_PARALLELISM"] = "false"
os.environ["RAYON_NUM_THREADS"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Callable  # noqa: E402

import numpy as np  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import cpu_model, load_average, physical_cores, versions  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def log(msg: str) -> None:
    print(f"[rerank_peers] {msg}", file=sys.stderr, flush=True)


def read_lines(path: Path) -> list[str]:
    # "\n" only (str.splitlines would also split on U+2028 and friends), and
    # empty lines skipped, as bench/rerank_bench.cpp reads the file.
    return [line for line in path.read_bytes().decode("utf-8").split("\n") if line]


def model_max_length(model_dir: Path) -> int:
    """The truncation length CrossEncoder uses: tokenizer_config.json's
    model_max_length, capped by the model's max_position_embeddings (Sieve's
    Reranker reads the same two files)."""
    limit = None
    cfg = model_dir / "tokenizer_config.json"
    if cfg.is_file():
        limit = json.loads(cfg.read_text(encoding="utf-8")).get("model_max_length")
    positions = json.loads((model_dir / "config.json").read_text(encoding="utf-8")).get("max_position_embeddings")
    if limit is None or limit > 10**6:  # transformers' "no limit" sentinel
        limit = positions or 512
    return int(min(limit, positions) if positions else limit)


def plain_tokenizer(model_dir: Path) -> Tokenizer:
    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    # tokenizer.json carries its own Fixed padding / truncation (the export's);
    # padding is done per batch below and truncation is set by the caller.
    tok.no_padding()
    tok.no_truncation()
    return tok


# --------------------------------------------------------------------------
# docs
# --------------------------------------------------------------------------


def make_documents(tok: Tokenizer, words: list[str], length: int, count: int) -> list[str]:
    """`count` documents of exactly `length` tokens.

    BERT-style tokenizers split on whitespace before WordPiece, so a
    document's token count is the sum of its words' counts; each document
    takes words in file order from its own starting point, skipping a word
    that would overshoot, until the count is exact.  Deterministic: no
    randomness, only the word list and the tokenizer.
    """
    counts = [len(e.ids) for e in tok.encode_batch(words, add_special_tokens=False)]
    docs = []
    for i in range(count):
        pos = (i * 7919) % len(words)  # a prime stride: documents start apart
        picked: list[str] = []
        total = 0
        for step in range(4 * len(words)):
            j = (pos + step) % len(words)
            if 0 < counts[j] <= length - total:
                picked.append(words[j])
                total += counts[j]
                if total == length:
                    break
        if total != length:
            raise SystemExit(f"cannot build a document of exactly {length} tokens from the word list")
        docs.append(" ".join(picked))
    got = [len(e.ids) for e in tok.encode_batch(docs, add_special_tokens=False)]
    if set(got) != {length}:
        raise SystemExit(f"documents for length {length}: token counts {sorted(set(got))} (expected {length})")
    return docs


def cmd_docs(args: argparse.Namespace) -> int:
    tok = plain_tokenizer(args.model)
    words = [w for line in read_lines(args.sentences) for w in line.split()]
    args.out_dir.mkdir(parents=True, exist_ok=True)
    summary = {}
    for length in args.lengths_list:
        docs = make_documents(tok, words, length, args.count)
        path = args.out_dir / f"docs-{length}.txt"
        path.write_text("\n".join(docs) + "\n", encoding="utf-8")
        summary[str(length)] = {"file": str(path), "documents": len(docs), "tokens_each": length}
        log(f"{path}: {len(docs)} documents of exactly {length} tokens (checked with tokenizers)")
    json.dump(summary, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


# --------------------------------------------------------------------------
# measure
# --------------------------------------------------------------------------


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


class OrtReranker:
    """What a straightforward Python user writes around an exported cross-encoder."""

    def __init__(self, model_dir: Path, threads: int, max_length: int, batch_size: int):
        import onnxruntime as ort

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
        self.tok = plain_tokenizer(model_dir)
        self.tok.enable_truncation(max_length=max_length, strategy="longest_first")
        pad = json.loads((model_dir / "tokenizer.json").read_text(encoding="utf-8")).get("padding") or {}
        self.pad_id = int(pad.get("pad_id", 0))
        self.batch_size = batch_size

    def score(self, query: str, documents: list[str]) -> np.ndarray:
        # All of this is inside the timed call, as it is in Sieve's score().
        encs = self.tok.encode_batch([(query, d) for d in documents])
        order = sorted(range(len(encs)), key=lambda i: len(encs[i].ids))
        scores = np.empty(len(encs), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            width = max(len(encs[i].ids) for i in idx)
            ids = np.full((len(idx), width), self.pad_id, dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.int64)
            type_ids = np.zeros((len(idx), width), dtype=np.int64)
            for row, i in enumerate(idx):
                n = len(encs[i].ids)
                ids[row, :n] = encs[i].ids
                mask[row, :n] = 1
                type_ids[row, :n] = encs[i].type_ids
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": type_ids}
            feeds = {k: v for k, v in feeds.items() if k in self.input_names}
            logits = self.session.run([self.output_name], feeds)[0]
            # One label: CrossEncoder's default activation is a sigmoid.
            scores[idx] = sigmoid(logits[:, 0].astype(np.float64)).astype(np.float32)
        return scores


def time_calls(fn: Callable[[], np.ndarray], min_seconds: float, min_reps: int) -> tuple[dict, np.ndarray]:
    """One untimed warm-up call, then timed calls until both limits are met."""
    first = np.asarray(fn(), dtype=np.float32).reshape(-1)
    samples: list[float] = []
    start = time.perf_counter()
    while time.perf_counter() - start < min_seconds or len(samples) < min_reps:
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    ms = np.asarray(samples) * 1e3
    p50 = float(np.percentile(ms, 50))
    return {"p50_ms": p50, "p99_ms": float(np.percentile(ms, 99)), "reps": len(samples)}, first


def cmd_measure(args: argparse.Namespace) -> int:
    t_start = time.perf_counter()
    load_start = load_average()
    sets = [(Path(f), read_lines(Path(f))) for f in args.documents_list]
    max_length = model_max_length(args.model)
    tok = plain_tokenizer(args.model)
    tok.enable_truncation(max_length=max_length, strategy="longest_first")

    result: dict = {
        "benchmark": "rerank_peers",
        "model": str(args.model),
        "query": args.query,
        "batch_size": args.batch_size,
        "threads": args.threads,
        "max_length": max_length,
        "min_seconds": args.min_seconds,
        "min_reps": args.min_reps,
        "sets": [],
    }
    for path, docs in sets:
        pair_tokens = [len(e.ids) for e in tok.encode_batch([(args.query, d) for d in docs])]
        doc_tokens = [len(e.ids) for e in tok.encode_batch(docs, add_special_tokens=False)]
        result["sets"].append({
            "file": str(path),
            "documents": len(docs),
            "document_tokens": sorted(set(doc_tokens)),
            "pair_tokens": [min(pair_tokens), max(pair_tokens)],
        })

    ort_model = OrtReranker(args.model, args.threads, max_length, args.batch_size)
    for row, (path, docs) in zip(result["sets"], sets):
        timing, scores = time_calls(lambda: ort_model.score(args.query, docs), args.min_seconds, args.min_reps)
        row["ort_python"] = {**timing, "pairs_per_s": len(docs) / (timing["p50_ms"] / 1e3), "scores": scores.tolist()}
        log(f"ort_python {path.name}: p50 {timing['p50_ms']:.1f} ms ({timing['reps']} reps)")

    if args.skip_st:
        result["sentence_transformers_skipped"] = "--skip-st"
    else:
        import torch
        from sentence_transformers import CrossEncoder

        torch.set_num_threads(args.threads)
        model = CrossEncoder(str(args.model), device="cpu")
        result["st_max_length"] = model.max_seq_length
        result["st_activation"] = type(model.activation_fn).__name__
        result["torch_threads"] = torch.get_num_threads()
        for row, (path, docs) in zip(result["sets"], sets):
            pairs = [[args.query, d] for d in docs]
            timing, scores = time_calls(
                lambda: model.predict(pairs, batch_size=args.batch_size, show_progress_bar=False, convert_to_numpy=True),
                args.min_seconds,
                args.min_reps,
            )
            row["sentence_transformers"] = {
                **timing,
                "pairs_per_s": len(docs) / (timing["p50_ms"] / 1e3),
                "scores": scores.tolist(),
            }
            log(f"sentence_transformers {path.name}: p50 {timing['p50_ms']:.1f} ms ({timing['reps']} reps)")

    result["machine"] = {
        "cpu": cpu_model(),
        "logical_cpus": os.cpu_count(),
        "physical_cores": physical_cores(),
        "platform": platform.platform(),
        "loadavg_start": load_start,
        "loadavg_end": load_average(),
    }
    result["versions"] = versions()
    result["wall_s"] = round(time.perf_counter() - t_start, 1)
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    model_default = ROOT / "build" / "fixtures" / "cross-encoder-minilm-l6"

    d = sub.add_parser("docs", help="write the candidate documents")
    d.add_argument("--model", type=Path, default=model_default, help="folder with tokenizer.json (default: %(default)s)")
    d.add_argument("--sentences", type=Path, default=ROOT / "tests" / "data" / "sentences.txt",
                   help="the word source (default: %(default)s)")
    d.add_argument("--lengths", default="32,128,256", help="document lengths in tokens (default: %(default)s)")
    d.add_argument("--count", type=int, default=100, help="documents per length (default: %(default)s)")
    d.add_argument("--out-dir", type=Path, required=True)

    m = sub.add_parser("measure", help="time the Python peers")
    m.add_argument("--model", type=Path, default=model_default,
                   help="cross-encoder folder: model.onnx + Hugging Face files (default: %(default)s)")
    m.add_argument("--query", required=True)
    m.add_argument("--documents", required=True, help="comma-separated files, one document per line")
    m.add_argument("--batch-size", type=int, default=32, help="pairs per model run, as Sieve's (default: %(default)s)")
    m.add_argument("--threads", type=int, default=None, help="ORT / torch intra-op threads (default: physical cores)")
    m.add_argument("--min-seconds", type=float, default=2.0, help="minimum timing per set (default: %(default)s)")
    m.add_argument("--min-reps", type=int, default=10, help="minimum timed calls per set (default: %(default)s)")
    m.add_argument("--skip-st", action="store_true", help="skip sentence-transformers (torch)")

    args = ap.parse_args(argv)
    if args.command == "docs":
        args.lengths_list = [int(x) for x in args.lengths.split(",") if x.strip()]
        if not args.lengths_list or min(args.lengths_list) < 1 or args.count < 1:
            ap.error("--lengths and --count must be positive")
    else:
        args.documents_list = [x for x in args.documents.split(",") if x]
        if args.threads is None:
            args.threads = physical_cores()
        if args.batch_size < 1 or args.threads < 1:
            ap.error("--batch-size and --threads must be >= 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    return cmd_docs(args) if args.command == "docs" else cmd_measure(args)


if __name__ == "__main__":
    sys.exit(main())
