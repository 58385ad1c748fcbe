"""`sieve-export report`: how close each variant folder is to the FP32
reference, and (with --bench) how fast, both measured by Sieve itself.

Embedders: every corpus text is embedded by `sieve embed --format npy` with
each folder; per text the cosine similarity of the variant's vector to the
reference's (mean and minimum over the corpus), and the top-10
nearest-neighbour overlap: for each text, |top10_ref & top10_variant| / 10,
the neighbours ranked by cosine over the whole corpus, the text itself left
out; the mean over texts.

Cross-encoders: the corpus is cut into queries (the first --queries lines)
and, for each, the next --docs-per-query lines as its documents; each query is
scored with `sieve rerank --raw-scores`. Reported: Spearman's rank correlation
of the variant's scores with the reference's (per query, averaged, and over
all pairs), the largest score difference, and the top-10 overlap per query.

Speed (--bench): Sieve's benchmark programs (build/sieve_bench: embedding
sentences/s at one batch size and single-text latency; build/sieve_rerank_bench:
one query against a document set) per folder, the folders interleaved over
--rounds rounds in the same run; medians of the rounds, relative to the reference.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from .calibration import read_texts
from .model_folder import CROSS_ENCODER, EMBEDDER, ToolError, detect_kind, folder_size, log


def default_sieve() -> Path:
    here = Path(__file__).resolve().parents[2]
    return Path(os.environ.get("SIEVE_BIN", here / "build" / "sieve"))


# ---- statistics (numpy only)

def rankdata(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n, ties given the average of the ranks they span (scipy's 'average')."""
    x = np.asarray(x, dtype=np.float64)
    order = np.argsort(x, kind="mergesort")
    sorted_x = x[order]
    ranks = np.empty(len(x), dtype=np.float64)
    start = 0
    n = len(x)
    while start < n:
        end = start
        while end + 1 < n and sorted_x[end + 1] == sorted_x[start]:
            end += 1
        ranks[order[start:end + 1]] = (start + end) / 2.0 + 1.0
        start = end + 1
    return ranks


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's rho: Pearson correlation of the average ranks (nan when a side is constant)."""
    ra, rb = rankdata(a), rankdata(b)
    ra -= ra.mean()
    rb -= rb.mean()
    denom = np.sqrt((ra * ra).sum() * (rb * rb).sum())
    return float((ra * rb).sum() / denom) if denom > 0 else float("nan")


def _unit(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)


def cosine_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine similarity of each row of a with the same row of b."""
    return (_unit(a) * _unit(b)).sum(axis=1)


def top_k_neighbours(x: np.ndarray, k: int = 10, chunk: int = 1024) -> np.ndarray:
    """For each row, the indices of its k most cosine-similar other rows (itself left out)."""
    u = _unit(x)
    n = len(u)
    k = min(k, n - 1)
    out = np.empty((n, k), dtype=np.int64)
    for start in range(0, n, chunk):
        sims = u[start:start + chunk] @ u.T
        rows = np.arange(start, min(start + chunk, n))
        sims[rows - start, rows] = -np.inf
        part = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        out[start:start + chunk] = part
    return out


def top_k_overlap(ref: np.ndarray, var: np.ndarray, k: int = 10) -> np.ndarray:
    """Per row: |top-k neighbours by ref ∩ top-k neighbours by var| / k."""
    a, b = top_k_neighbours(ref, k), top_k_neighbours(var, k)
    kk = a.shape[1]
    return np.array([len(set(x) & set(y)) / kk for x, y in zip(a, b)])


def set_overlap(a_scores: np.ndarray, b_scores: np.ndarray, k: int = 10) -> float:
    """|top-k of a ∩ top-k of b| / k, by score (stable order for ties)."""
    k = min(k, len(a_scores))
    ta = set(np.argsort(-np.asarray(a_scores), kind="stable")[:k])
    tb = set(np.argsort(-np.asarray(b_scores), kind="stable")[:k])
    return len(ta & tb) / k


def embedder_accuracy(ref: np.ndarray, var: np.ndarray, k: int = 10) -> dict:
    cos = cosine_rows(ref, var)
    overlap = top_k_overlap(ref, var, k)
    return {"texts": int(len(ref)), "mean_cosine": float(cos.mean()), "min_cosine": float(cos.min()),
            "p01_cosine": float(np.quantile(cos, 0.01)), f"top{k}_overlap": float(overlap.mean()),
            f"min_top{k}_overlap": float(overlap.min())}


def cross_encoder_accuracy(ref: list[np.ndarray], var: list[np.ndarray], k: int = 10) -> dict:
    per_query = [spearman(r, v) for r, v in zip(ref, var)]
    overlaps = [set_overlap(r, v, k) for r, v in zip(ref, var)]
    all_ref, all_var = np.concatenate(ref), np.concatenate(var)
    return {"queries": len(ref), "pairs": int(len(all_ref)), "mean_spearman": float(np.nanmean(per_query)),
            "min_spearman": float(np.nanmin(per_query)), "spearman_all_pairs": spearman(all_ref, all_var),
            "max_abs_score_diff": float(np.abs(all_ref - all_var).max()),
            f"top{k}_overlap": float(np.mean(overlaps)), f"min_top{k}_overlap": float(np.min(overlaps))}


# ---- running Sieve

def _run(cmd: list[str], stdin: bytes | None = None) -> bytes:
    result = subprocess.run(cmd, input=stdin, capture_output=True)
    if result.returncode != 0:
        raise ToolError(f"{' '.join(cmd[:4])} ... failed ({result.returncode}): "
                        f"{result.stderr.decode(errors='replace').strip()}")
    return result.stdout


def sieve_embed(sieve: Path, folder: Path, texts: list[str], *, threads: int = 0, batch_size: int = 32,
                provider: str | None = None) -> np.ndarray:
    cmd = [str(sieve), "--log-level", "warn", "embed", "--model", str(folder), "--format", "npy",
           "--batch-size", str(batch_size), *provider_args(provider)]
    if provider:
        cmd += ["--strict-providers"]
    if threads:
        cmd += ["--threads", str(threads)]
    out = _run(cmd, "".join(t + "\n" for t in texts).encode("utf-8"))
    matrix = np.load(io.BytesIO(out))
    if matrix.shape[0] != len(texts):
        raise ToolError(f"sieve embed returned {matrix.shape[0]} rows for {len(texts)} texts")
    return matrix


def sieve_rerank(sieve: Path, folder: Path, query: str, documents: list[str], *, threads: int = 0,
                 provider: str | None = None) -> np.ndarray:
    cmd = [str(sieve), "--log-level", "warn", "rerank", "--model", str(folder), "--query", query, "--raw-scores",
           *provider_args(provider)]
    if provider:
        cmd += ["--strict-providers"]
    if threads:
        cmd += ["--threads", str(threads)]
    out = json.loads(_run(cmd, "".join(d + "\n" for d in documents).encode("utf-8")))
    scores = np.full(len(documents), np.nan)
    for r in out["results"]:
        scores[r["index"]] = r["score"]
    if np.isnan(scores).any():
        raise ToolError("sieve rerank did not score every document")
    return scores


def clean_texts(texts: list[str]) -> list[str]:
    """Texts Sieve reads back one per line: no carriage returns, not blank."""
    return [t for t in texts if "\r" not in t and t.strip()]


# ---- speed

def bench_embedder(bench: Path, folder: Path, sentences: Path, *, batch_size: int, min_seconds: float,
                   threads: int, provider: str | None = None) -> dict:
    cmd = [str(bench), "--model", str(folder), "--sentences", str(sentences), "--batch-sizes", str(batch_size),
           "--min-seconds", str(min_seconds), "--threads", str(threads), *provider_args(provider)]
    out = json.loads(_run(cmd))
    return {"sentences_per_second": out["embed"][str(batch_size)]["sentences_per_second"],
            "latency_p50_ms": out["latency_ms"]["p50"], "threads": out.get("threads")}


def bench_reranker(bench: Path, folder: Path, query: str, documents: Path, *, batch_size: int,
                   min_seconds: float, threads: int, provider: str | None = None) -> dict:
    cmd = [str(bench), "--model", str(folder), "--query", query, "--documents", str(documents),
           "--batch-size", str(batch_size), "--min-seconds", str(min_seconds), "--threads", str(threads),
           *provider_args(provider)]
    out = json.loads(_run(cmd))["sets"][0]
    return {"pairs_per_second": out["pairs_per_s"], "latency_p50_ms": out["p50_ms"]}


# ---- variants: a folder, or a folder on an execution provider (FOLDER@openvino, FOLDER@openvino:precision=f32)

PROVIDERS = ("cpu", "cuda", "tensorrt", "openvino", "dnnl", "coreml", "directml", "rocm", "xnnpack", "qnn")


def split_variant(spec) -> tuple[Path, str | None]:
    """(folder, provider or None) of a variant argument."""
    text = str(spec)
    folder, at, provider = text.rpartition("@")
    if at and provider.split(":", 1)[0] in PROVIDERS and folder:
        return Path(folder), provider
    return Path(text), None


def variant_name(folder: Path, provider: str | None) -> str:
    return folder.name + (f"@{provider}" if provider else "")


def provider_args(provider: str | None) -> list[str]:
    return ["--provider", provider] if provider else []


# ---- the report

def report(reference: Path, variants: list[Path], corpus: Path, *, kind: str = "auto", sieve: Path | None = None,
           limit: int = 2000, skip: int = 0, queries: int = 20, docs_per_query: int = 100, top_k: int = 10,
           bench: bool = False, bench_binary: Path | None = None, rounds: int = 3, bench_texts: int = 256,
           bench_batch_size: int = 32, min_seconds: float = 2.0, threads: int = 0,
           min_cosine: float | None = None, min_worst_cosine: float | None = None,
           sentence_transformers: Path | None = None) -> dict:
    sieve = Path(sieve) if sieve else default_sieve()
    if not sieve.is_file():
        raise ToolError(f"{sieve}: the sieve binary was not found (--sieve PATH)")
    reference = Path(reference)
    # (folder, provider) per variant; the reference runs on the CPU provider.
    folders = [(reference, None), *[split_variant(v) for v in variants]]
    if kind == "auto":
        kind = detect_kind(reference)
    if kind not in (EMBEDDER, CROSS_ENCODER):
        raise ToolError(f"unknown --kind {kind!r}")
    started = time.time()
    result: dict = {"kind": kind, "reference": str(reference), "corpus": str(corpus), "sieve": str(sieve),
                    "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "variants": []}
    try:
        result["load_average"] = list(os.getloadavg())
    except OSError:
        pass

    if sentence_transformers is not None and kind != EMBEDDER:
        raise ToolError("--sentence-transformers works with embedders only")
    if kind == EMBEDDER:
        texts = clean_texts(read_texts(Path(corpus), limit=limit, skip=skip))
        result["texts"] = len(texts)
        log(f"embedding {len(texts)} texts with the reference")
        ref = sieve_embed(sieve, reference, texts, threads=threads)
        if sentence_transformers is not None:
            # Every variant, the FP32 folder included, against sentence-transformers on the original model.
            log(f"embedding them with sentence-transformers ({sentence_transformers})")
            ref = st_embed(Path(sentence_transformers), texts, threads)
            result["against"] = f"sentence-transformers ({sentence_transformers})"
    else:
        lines = clean_texts(read_texts(Path(corpus), limit=queries * (docs_per_query + 1), skip=skip))
        qs = lines[:queries]
        docs = lines[queries:]
        groups = [(q, docs[i * docs_per_query:(i + 1) * docs_per_query]) for i, q in enumerate(qs)]
        groups = [(q, d) for q, d in groups if d]
        result["queries"], result["pairs"] = len(groups), sum(len(d) for _, d in groups)
        log(f"scoring {result['pairs']} pairs ({len(groups)} queries) with the reference")
        ref = [sieve_rerank(sieve, reference, q, d, threads=threads) for q, d in groups]

    for folder, provider in folders:
        entry: dict = {"name": variant_name(folder, provider), "folder": str(folder), "provider": provider,
                       "size_bytes": folder_size(folder)}
        result["variants"].append(entry)
        is_reference = folder == reference and provider is None
        if is_reference:
            entry["reference"] = True
        log(f"accuracy of {entry['name']}")
        try:
            if kind == EMBEDDER:
                var = (ref if is_reference and sentence_transformers is None
                       else sieve_embed(sieve, folder, texts, threads=threads, provider=provider))
                entry["accuracy"] = embedder_accuracy(ref, var, top_k)
            else:
                var = ref if is_reference else [sieve_rerank(sieve, folder, q, d, threads=threads,
                                                             provider=provider) for q, d in groups]
                entry["accuracy"] = cross_encoder_accuracy(ref, var, top_k)
        except ToolError as exc:
            entry["error"] = str(exc)
            log(f"{folder}: {exc}")

    if bench:
        _bench(result, folders, corpus, kind, bench_binary, rounds=rounds, bench_texts=bench_texts,
               batch_size=bench_batch_size, min_seconds=min_seconds, threads=threads, skip=skip,
               groups=groups if kind == CROSS_ENCODER else None, sieve=sieve)
    if min_cosine is not None:
        result["recommendation"] = recommend(result, min_cosine, min_worst_cosine)
    result["seconds"] = round(time.time() - started, 1)
    return result


def st_embed(model: Path, texts: list[str], threads: int) -> np.ndarray:
    try:
        import torch
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise ToolError(f"--sentence-transformers needs sentence-transformers and torch ({exc}): run "
                        "sieve-export from .venv-export") from exc
    if threads:
        torch.set_num_threads(threads)
    vectors = SentenceTransformer(str(model), device="cpu").encode(texts, batch_size=32, convert_to_numpy=True)
    return np.asarray(vectors, dtype=np.float32)


def recommend(result: dict, min_cosine: float, min_worst: float | None = None) -> dict:
    """The fastest variant whose mean cosine (a cross-encoder's: mean Spearman per query) reaches `min_cosine`
    and, when given, whose worst text's cosine reaches `min_worst` (embedders); without speed figures (--bench),
    the smallest of those."""
    key = "mean_cosine" if result["kind"] == EMBEDDER else "mean_spearman"

    def good(e: dict) -> bool:
        a = e.get("accuracy") or {}
        worst_ok = min_worst is None or result["kind"] != EMBEDDER or a.get("min_cosine", -1) >= min_worst
        return a.get(key, -1) >= min_cosine and worst_ok

    meets = [e for e in result["variants"] if good(e)]
    out: dict = {"min_cosine": min_cosine, "min_worst_cosine": min_worst, "measure": key,
                 "meets": [e["name"] for e in meets]}
    if not meets:
        out["choice"] = None
        out["why"] = f"no variant reaches a {key.replace('_', ' ')} of {min_cosine}"
        return out
    rate = "sentences_per_second" if result["kind"] == EMBEDDER else "pairs_per_second"
    timed = [e for e in meets if rate in (e.get("speed") or {})]
    if timed:
        best = max(timed, key=lambda e: e["speed"][rate])
        out["choice"] = best["name"]
        out["why"] = (f"the fastest ({best['speed'][rate]:.1f} {rate.replace('_per_second', '/s')}) of those with a "
                      f"{key.replace('_', ' ')} of at least {min_cosine} ({best['accuracy'][key]:.5f})")
    else:
        best = min(meets, key=lambda e: e["size_bytes"])
        out["choice"] = best["name"]
        out["why"] = (f"the smallest of those with a {key.replace('_', ' ')} of at least {min_cosine}; "
                      "add --bench to choose by speed")
    return out


def _bench(result: dict, folders: list[Path], corpus: Path, kind: str, bench_binary: Path | None, *, rounds: int,
           bench_texts: int, batch_size: int, min_seconds: float, threads: int, skip: int, groups, sieve: Path) -> None:
    name = "sieve_bench" if kind == EMBEDDER else "sieve_rerank_bench"
    binary = Path(bench_binary) if bench_binary else sieve.parent / name
    if not binary.is_file():
        raise ToolError(f"{binary}: Sieve's benchmark program was not found (--bench-binary PATH)")
    threads = threads or 0
    runnable = [(f, e) for f, e in zip(folders, result["variants"]) if "error" not in e]
    samples: dict[str, list[dict]] = {e["name"]: [] for _, e in runnable}
    with tempfile.TemporaryDirectory(prefix="sieve-report-") as work:
        data = Path(work) / "bench.txt"
        if kind == EMBEDDER:
            texts = clean_texts(read_texts(Path(corpus), limit=bench_texts, skip=skip))
        else:
            query, texts = groups[0]
        data.write_text("".join(t + "\n" for t in texts), encoding="utf-8")
        result["bench"] = {"program": str(binary), "rounds": rounds, "texts": len(texts), "batch_size": batch_size,
                           "min_seconds": min_seconds, "threads": threads or "physical cores"}
        for r in range(rounds):
            # Interleaved: every folder once per round, in a rotated order, so
            # drifts of the machine's speed touch all of them alike.
            order = runnable[r % len(runnable):] + runnable[:r % len(runnable)]
            for (folder, provider), entry in order:
                log(f"bench round {r + 1}/{rounds}: {entry['name']}")
                if kind == EMBEDDER:
                    s = bench_embedder(binary, folder, data, batch_size=batch_size, min_seconds=min_seconds,
                                       threads=threads, provider=provider)
                else:
                    s = bench_reranker(binary, folder, query, data, batch_size=batch_size,
                                       min_seconds=min_seconds, threads=threads, provider=provider)
                samples[entry["name"]].append(s)
    rate_key = "sentences_per_second" if kind == EMBEDDER else "pairs_per_second"
    ref_entry = result["variants"][0]
    for entry in result["variants"]:
        runs = samples.get(entry["name"])
        if not runs:
            continue
        entry["speed"] = {rate_key: float(np.median([s[rate_key] for s in runs])),
                          "latency_p50_ms": float(np.median([s["latency_p50_ms"] for s in runs])),
                          "rounds": [{k: v for k, v in s.items()} for s in runs]}
    ref_speed = ref_entry.get("speed")
    if ref_speed:
        for entry in result["variants"]:
            if "speed" in entry:
                entry["speed"]["throughput_vs_reference"] = entry["speed"][rate_key] / ref_speed[rate_key]
                entry["speed"]["latency_vs_reference"] = entry["speed"]["latency_p50_ms"] / ref_speed["latency_p50_ms"]


def markdown(result: dict, top_k: int = 10) -> str:
    embedder = result["kind"] == EMBEDDER
    speed = any("speed" in e for e in result["variants"])
    if embedder:
        head = ["variant", "size MB", "mean cosine", "min cosine", f"top-{top_k} overlap"]
    else:
        head = ["variant", "size MB", "Spearman (mean/query)", "Spearman (all pairs)", "max |Δ score|",
                f"top-{top_k} overlap"]
    rate = "sentences/s" if embedder else "pairs/s"
    if speed:
        head += [rate, "× FP32", "p50 latency ms", "× FP32"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for e in result["variants"]:
        row = [e["name"] + (" (reference)" if e.get("reference") else ""), f"{e['size_bytes'] / 1e6:.1f}"]
        a = e.get("accuracy")
        if a is None:
            row += ["error: " + e.get("error", "?").replace("|", "/")[:120]] + [""] * (len(head) - 3)
        elif embedder:
            row += [f"{a['mean_cosine']:.5f}", f"{a['min_cosine']:.5f}", f"{a[f'top{top_k}_overlap']:.4f}"]
        else:
            row += [f"{a['mean_spearman']:.4f}", f"{a['spearman_all_pairs']:.4f}", f"{a['max_abs_score_diff']:.3g}",
                    f"{a[f'top{top_k}_overlap']:.4f}"]
        if speed and a is not None:
            s = e.get("speed")
            if s:
                key = "sentences_per_second" if embedder else "pairs_per_second"
                row += [f"{s[key]:.1f}", f"{s.get('throughput_vs_reference', float('nan')):.2f}",
                        f"{s['latency_p50_ms']:.2f}", f"{s.get('latency_vs_reference', float('nan')):.2f}"]
            else:
                row += ["", "", "", ""]
        lines.append("| " + " | ".join(row) + " |")
    notes = [f"{result.get('texts', result.get('pairs'))} {'texts' if embedder else 'pairs'} from {result['corpus']}, "
             f"measured with {result['sieve']} on {result['date']}"]
    if "load_average" in result:
        notes.append("load average at start: " + ", ".join(f"{x:.2f}" for x in result["load_average"]))
    if "bench" in result:
        b = result["bench"]
        notes.append(f"speed: {Path(b['program']).name}, {b['texts']} texts, batch {b['batch_size']}, "
                     f"{b['rounds']} interleaved rounds of >= {b['min_seconds']} s, medians; threads: {b['threads']}")
    if "against" in result:
        notes.append(f"accuracy against {result['against']}, every variant (the FP32 folder too) run by Sieve")
    rec = result.get("recommendation")
    if rec:
        notes.append(f"recommended at {rec['measure'].replace('_', ' ')} >= {rec['min_cosine']}: "
                     + (f"**{rec['choice']}**, {rec['why']}" if rec["choice"] else rec["why"]))
    return "\n".join(lines) + "\n\n" + "\n".join(f"- {n}" for n in notes) + "\n"
