"""Writes the tokenizer section of bench/RESULTS.md from rounds of
sieve_tokenizer_bench and bench/tokenizer_peers.py: throughput ratios per
tokenizer, and whether both produced the same ids.

Each round measures one tokenizer with Sieve and then with Hugging Face, back
to back, so both see the same load; the ratio reported is the median over
rounds of each round's ratio (the machine is shared and its load shifts)."""
from __future__ import annotations

import argparse
import datetime
import json
import statistics
from pathlib import Path

from report import commit, cpu_model
from results_file import replace_section

# The targets: x times Hugging Face's single-threaded throughput.
TARGETS = {"WordPiece": 3.0, "BPE": 1.5, "Unigram": 1.5}


def model_type(path: str) -> str:
    model = json.loads(Path(path).read_text(encoding="utf-8"))["model"]
    if "type" in model:
        return model["type"]
    if "merges" in model:
        return "BPE"
    if isinstance(model.get("vocab"), list):
        return "Unigram"
    return "WordPiece"


def main() -> None:
    ap = argparse.ArgumentParser()
    # Paired by position: the n-th --sieve and the n-th --peers ran back to back.
    ap.add_argument("--sieve", action="append", required=True, help="sieve_tokenizer_bench output")
    ap.add_argument("--peers", action="append", required=True, help="tokenizer_peers.py output")
    ap.add_argument("--rust", action="append", default=[],
                    help="bench/rust_peer output, paired by position with --sieve (optional)")
    ap.add_argument("--files", required=True, help="JSON {name: tokenizer.json path}")
    ap.add_argument("--notes", required=True, help="markdown file: what was done for speed and what it bought")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rounds = [(json.loads(Path(a).read_text()), json.loads(Path(b).read_text())) for a, b in zip(args.sieve, args.peers)]
    rust = [json.loads(Path(r).read_text()) for r in args.rust]
    files = json.loads(Path(args.files).read_text())
    s, p = rounds[0]
    n_rounds = max(sum(1 for a, _ in rounds if n in a["tokenizers"]) for n in files)
    lines = [
        "Produced by `bash bench/run_tokenizers.sh` (bench/tokenizer_bench.cpp and bench/tokenizer_peers.py, same",
        "corpus, same machine). Each side encodes every line with the file's normalizer, pre-tokenizer, model and",
        "post-processor, without its truncation and padding; both sides' ids are hashed and compared. In each round",
        "every tokenizer runs on Sieve and then on Hugging Face back to back; throughputs are medians over rounds and",
        "each ratio is the median of the rounds' ratios, so a load that shifts during the run affects both sides.",
        "Single-thread rates are tokens per second of process CPU time on both sides (the machine is shared, and wall",
        "time would count the time other processes held the core); all-cores rates are per second of wall time and",
        "depend on what else ran.",
        "",
        f"- Machine: {cpu_model()}, {s['cores']} cores; date {datetime.date.today().isoformat()}; commit {commit()}",
        f"- Peer: Hugging Face tokenizers {p['tokenizers_version']} from Python, `encode_batch`; single thread = "
        "TOKENIZERS_PARALLELISM=false and RAYON_NUM_THREADS=1; Sieve single thread = `encode_each(texts, true, 1)`.",
        f"- Corpus: {s['lines']} valid UTF-8 lines of the parity corpus (tools/build_corpus.py); {n_rounds} rounds.",
    ]
    if rust:
        lines.append("- Second peer: the same library's Rust crate (bench/rust_peer, "
                     f"{rust[0]['tokenizers_version']}), `encode_batch` with its parallelism off (1 thread) and on, "
                     "run right after Hugging Face from Python in each round; its ids are hashed and compared too.")
    lines += [
        "",
        "| tokenizer | model | tokens | Sieve tok/s (1 thread) | HF tok/s (1 thread) | ratio | target | "
        "Sieve all cores | HF all cores | ratio | same ids |" + (" HF Rust tok/s (1 thread) | ratio to Rust | "
                                                                  "Rust same ids |" if rust else ""),
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|" + ("---:|---:|---|" if rust else ""),
    ]
    names = [n for n in files if any(n in r[0]["tokenizers"] and n in r[1]["tokenizers"] for r in rounds)]
    for name in names:
        pairs = [(a["tokenizers"][name], b["tokenizers"][name]) for a, b in rounds
                 if name in a["tokenizers"] and name in b["tokenizers"]]
        kind = model_type(files[name])

        def rate(side: int, mode: str) -> float:
            return statistics.median(pair[side][mode]["tokens_per_second"] for pair in pairs)

        def ratio(mode: str) -> float:
            return statistics.median(a[mode]["tokens_per_second"] / b[mode]["tokens_per_second"] for a, b in pairs)

        entry = pairs[0][0]
        same = all(a["ids_hash"] == b["ids_hash"] and a["tokens"] == b["tokens"] for a, b in pairs)
        target = TARGETS.get(kind, 1.5)
        lines.append(f"| {name} | {kind} | {entry['tokens']:,} | {rate(0, 'single_thread'):,.0f} | "
                     f"{rate(1, 'single_thread'):,.0f} | {ratio('single_thread'):.2f}x | {target:.1f}x | "
                     f"{rate(0, 'all_cores'):,.0f} | {rate(1, 'all_cores'):,.0f} | {ratio('all_cores'):.2f}x | "
                     f"{'yes' if same else '**NO**'} |")
        triples = [(a["tokenizers"][name], r["tokenizers"][name]) for (a, _), r in zip(rounds, rust)
                   if name in a["tokenizers"] and name in r["tokenizers"]]
        if rust and triples:
            rust_rate = statistics.median(r["single_thread"]["tokens_per_second"] for _, r in triples)
            rust_ratio = statistics.median(a["single_thread"]["tokens_per_second"] / r["single_thread"]["tokens_per_second"]
                                           for a, r in triples)
            rust_same = all(a["ids_hash"] == r["ids_hash"] and a["tokens"] == r["tokens"] for a, r in triples)
            lines[-1] += f" {rust_rate:,.0f} | {rust_ratio:.2f}x | {'yes' if rust_same else '**NO**'} |"
        elif rust:
            lines[-1] += " | | |"
    lines += ["", Path(args.notes).read_text(encoding="utf-8").strip()]
    replace_section(Path(args.out), "## Tokenizers (issue 3)", lines)


if __name__ == "__main__":
    main()
