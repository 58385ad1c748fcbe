"""How far a variant's ONNX file drifts from the float model it was made from.

`sieve-export quantize` measures what it wrote before it keeps it: both graphs
run on the same tokenized texts in ONNX Runtime (the CPU provider), and the
variant's outputs are compared with the float model's:

- an embedder's output, pooled over the attention mask when it is per token
  (a pooled output is compared as it is), by cosine per text;
- a SPLADE model's vocabulary weights (log(1 + ReLU), max over the tokens),
  by cosine per text;
- a cross-encoder's scores, per label, by Pearson correlation over the pairs
  (the cosine of the centred scores), and their largest absolute difference.

The texts are the user's (`--check-texts FILE`, one per line; for a
cross-encoder "query<TAB>document") or the built-in sample: prose paragraphs
and summary lines of the docstrings of Python's standard library (real prose
nobody here wrote, on every machine that runs the tools), 5 to 300 tokens.

The record is written into the folder as sieve_accuracy.json, which
`sieve info` shows and Sieve's loader warns about when the variant fell below
its threshold.
"""

from __future__ import annotations

import ast
import datetime
import re
import sysconfig
from pathlib import Path

import numpy as np

from .model_folder import CROSS_ENCODER, SPARSE, ToolError

RECORD = "sieve_accuracy.json"
DEFAULT_MIN_COSINE = 0.99
DEFAULT_CHECK_SIZE = 96

# Standard-library modules whose docstrings give the built-in sample: long,
# stable, ordinary English prose about many subjects.
_SAMPLE_MODULES = ("argparse.py", "collections/__init__.py", "email/message.py", "http/client.py",
                   "logging/__init__.py", "subprocess.py", "textwrap.py", "unittest/case.py", "zipfile.py",
                   "shutil.py", "tarfile.py", "difflib.py", "inspect.py", "decimal.py", "fractions.py",
                   "calendar.py", "csv.py", "statistics.py", "threading.py", "heapq.py", "bisect.py",
                   "random.py", "smtplib.py", "ftplib.py", "imaplib.py", "pickle.py", "gettext.py")


def _paragraphs(path: Path) -> list[tuple[str, str]]:
    """(summary line, paragraph) for each prose paragraph of the file's docstrings."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return []
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            continue
        doc = ast.get_docstring(node)
        if not doc:
            continue
        blocks = [" ".join(b.split()) for b in re.split(r"\n\s*\n", doc)]
        summary = blocks[0]
        for block in blocks:
            words = block.split()
            # Prose: enough words, few code-like lines (doctests, tables, signatures).
            if 5 <= len(words) <= 220 and ">>>" not in block and block.count("(") < len(words) / 4:
                out.append((summary, block))
    return out


def stdlib_paragraphs() -> list[str]:
    """Every prose paragraph (5 to 220 words) of the sample modules' docstrings, once each, in file order."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    return list(dict.fromkeys(body for module in _SAMPLE_MODULES for _, body in _paragraphs(stdlib / module)))


def builtin_texts(size: int = DEFAULT_CHECK_SIZE) -> list[str]:
    """`size` texts: prose paragraphs of the standard library's docstrings, long
    and short mixed (every third a summary line), in a fixed order."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    pairs = [p for module in _SAMPLE_MODULES for p in _paragraphs(stdlib / module)]
    if not pairs:
        raise ToolError(f"no docstrings found under {stdlib} for the built-in check sample: "
                        "give --check-texts FILE")
    paragraphs = list(dict.fromkeys(body for _, body in pairs))
    summaries = list(dict.fromkeys(s for s, _ in pairs if len(s.split()) >= 3))
    # Spread the picks over the whole list, so every module contributes.
    def spread(items: list[str], n: int) -> list[str]:
        if len(items) <= n:
            return items
        return [items[i * len(items) // n] for i in range(n)]
    texts = spread(paragraphs, size - size // 3) + spread(summaries, size // 3)
    return texts[:size]


def builtin_pairs(size: int = DEFAULT_CHECK_SIZE) -> list[str]:
    """Query<TAB>document lines for a cross-encoder: a docstring's summary with
    one of its paragraphs, and with a paragraph from elsewhere."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    pairs = [p for module in _SAMPLE_MODULES for p in _paragraphs(stdlib / module) if p[0] != p[1]]
    if not pairs:
        raise ToolError(f"no docstrings found under {stdlib} for the built-in check sample: "
                        "give --check-texts FILE")
    step = max(1, len(pairs) // max(1, size // 2))
    chosen = pairs[::step][: size // 2]
    lines = []
    for i, (summary, body) in enumerate(chosen):
        lines.append(f"{summary}\t{body}")
        lines.append(f"{summary}\t{chosen[(i + len(chosen) // 2) % len(chosen)][1]}")
    return lines[:size]


def _session(path: Path, threads: int):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.log_severity_level = 3
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def _output_index(session, kind: str) -> int:
    names = [o.name for o in session.get_outputs()]
    for wanted in (("logits",) if kind in (CROSS_ENCODER, SPARSE)
                   else ("sentence_embedding", "dense_vecs", "last_hidden_state", "token_embeddings")):
        if wanted in names:
            return names.index(wanted)
    return 0


def _rows(output: np.ndarray, mask: np.ndarray, kind: str) -> np.ndarray:
    """One row per text: per-token outputs pooled over the mask as the kind pools them."""
    output = output.astype(np.float64)
    if output.ndim == 3:
        m = mask[:, :, None].astype(np.float64)
        if kind == SPARSE:
            return (np.log1p(np.maximum(output, 0.0)) * m).max(axis=1)
        return (output * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1.0)
    return output.reshape(output.shape[0], -1)


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    na = np.linalg.norm(a, axis=1)
    nb = np.linalg.norm(b, axis=1)
    both_zero = (na == 0) & (nb == 0)
    cos = (a * b).sum(axis=1) / np.maximum(na * nb, 1e-30)
    return np.where(both_zero, 1.0, cos)


def measure(folder: Path, reference_onnx: Path, variant_onnx: Path, kind: str, texts: list[str],
            threads: int = 0) -> dict:
    """The variant's agreement with the reference on `texts` (see the module's docstring)."""
    from .calibration import encode_batches

    if kind == CROSS_ENCODER and len(texts) < 8:
        raise ToolError(f"the check needs at least 8 query-document pairs to correlate scores over, not {len(texts)}")
    ref = _session(reference_onnx, threads)
    var = _session(variant_onnx, threads)
    names = [i.name for i in ref.get_inputs()]
    if sorted(names) != sorted(i.name for i in var.get_inputs()):
        raise ToolError(f"{variant_onnx.name} takes other inputs than {reference_onnx.name}")
    ref_out, var_out = _output_index(ref, kind), _output_index(var, kind)
    want, got = [], []
    for feeds in encode_batches(folder, texts, names, kind, batch_size=8):
        mask = feeds.get("attention_mask", np.ones_like(next(iter(feeds.values()))))
        want.append(_rows(ref.run(None, feeds)[ref_out], mask, kind))
        got.append(_rows(var.run(None, feeds)[var_out], mask, kind))
    want, got = np.concatenate(want), np.concatenate(got)
    if kind == CROSS_ENCODER:
        centred_want = (want - want.mean(axis=0)).T
        centred_got = (got - got.mean(axis=0)).T
        correlation = _cosines(centred_want, centred_got)
        return {"texts": len(texts), "metric": "score correlation", "mean": float(correlation.mean()),
                "min": float(correlation.min()), "max_score_difference": float(np.abs(want - got).max())}
    cos = _cosines(want, got)
    return {"texts": len(texts), "metric": "cosine", "mean": float(cos.mean()), "min": float(cos.min()),
            "worst_text": texts[int(cos.argmin())][:120]}


def record(result: dict, *, sample: str, threshold: float, variant: str) -> dict:
    return {"variant": variant, "against": "the float model it was made from", "sample": sample,
            "min_cosine": threshold, "passed": result["mean"] >= threshold, **result,
            "written": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}


def check_texts(path: Path | None, kind: str, size: int) -> tuple[list[str], str]:
    """The texts to check on and how the record names them."""
    if path is not None:
        from .calibration import read_texts

        return read_texts(Path(path), limit=size), str(path)
    if kind == CROSS_ENCODER:
        return builtin_pairs(size), "built-in (standard library docstring pairs)"
    return builtin_texts(size), "built-in (standard library docstrings)"
