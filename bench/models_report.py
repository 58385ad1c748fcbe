"""Writes the section "Two real models" of bench/RESULTS.md from one run of
bench/run_models.sh: Sieve against sentence-transformers on all-MiniLM-L6-v2
and all-mpnet-base-v2."""
import argparse
import datetime
import json
from pathlib import Path

from report import commit, cpu_model
from results_file import replace_section

MODELS = {"minilm": "all-MiniLM-L6-v2 (6 layers, 384 wide)", "mpnet": "all-mpnet-base-v2 (12 layers, 768 wide)"}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    args = ap.parse_args()
    lines = [
        "Produced by `bash bench/run_models.sh` (bench/sieve_bench.cpp and bench/peers.py, model by model in one run,",
        "same sentences of tests/data/sentences.txt, medians over repetitions of at least MIN_SECONDS each).",
        "",
    ]
    first = True
    for key, title in MODELS.items():
        s = json.loads((args.dir / f"sieve-{key}.json").read_text())
        p = json.loads((args.dir / f"peers-{key}.json").read_text())
        if first:
            lines += [f"- Machine: {cpu_model()}, {p['threads']} threads; date {datetime.date.today().isoformat()}; "
                      f"commit {commit()}; at least {p['min_seconds']} s per configuration",
                      f"- ONNX Runtime {s['onnxruntime_version']}; peers: "
                      + ", ".join(f"{k} {v}" for k, v in p["versions"].items()),
                      "",
                      "| model | batch | Sieve (sentences/s) | sentence-transformers (sentences/s) | Sieve / sentence-transformers |",
                      "|---|---:|---:|---:|---:|"]
            first = False
        st = (p.get("sentence_transformers") or {}).get("batch", {})
        for b, row in sorted(s["embed"].items(), key=lambda kv: int(kv[0])):
            sv = row["sentences_per_second"]
            t = st.get(b, {}).get("sentences_per_s")
            lines.append(f"| {title} | {b} | {sv:.1f} | {t:.1f} | {sv / t:.2f}x |" if t else
                         f"| {title} | {b} | {sv:.1f} | - | - |")
    replace_section(args.out, "## Two real models: Sieve against sentence-transformers", lines)


if __name__ == "__main__":
    main()
