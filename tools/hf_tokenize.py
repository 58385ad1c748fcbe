#!/usr/bin/env python3
"""Tokenize a corpus with Hugging Face `tokenizers`: the parity tests' ground truth.

Why: the C++ tokenizer is correct when it returns, for every line, exactly
what `tokenizers.Tokenizer.from_file(FILE).encode(line)` returns -- with the
file's own truncation and padding settings, since that is what users of the
file get.  This script writes that expectation as JSON lines:

    python tools/hf_tokenize.py --tokenizer FILE --input CORPUS --output OUT.jsonl \
        [--no-padding] [--no-truncation] [--batch-size N]

Output line i belongs to input line i: {"ids", "type_ids", "attention_mask",
"tokens"} (plus "offsets", character offsets into the line, for diagnosing
mismatches); a line that is not valid UTF-8 gives {"skip": true} so that
numbering stays aligned.  The corpus is split on b"\\n" only: lines may hold
\\x0b, \\x0c, U+0085, U+2028, ... which str.splitlines() would also split on.
A final "\\n" does not start an extra empty line; "\\r" is kept as content.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from tokenizers import Tokenizer


def read_lines(path: Path) -> list[str | None]:
    """Lines of `path` split on b"\\n"; None where a line is not valid UTF-8."""
    raw = path.read_bytes()
    parts = raw.split(b"\n")
    if raw.endswith(b"\n"):
        parts.pop()
    lines: list[str | None] = []
    for part in parts:
        try:
            lines.append(part.decode("utf-8", "strict"))
        except UnicodeDecodeError:
            lines.append(None)
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokenizer", required=True, help="tokenizer.json")
    ap.add_argument("--input", required=True, help="corpus, one text per line")
    ap.add_argument("--output", required=True, help="JSON lines, one per input line")
    ap.add_argument("--no-padding", action="store_true", help="ignore the file's padding settings")
    ap.add_argument("--no-truncation", action="store_true", help="ignore the file's truncation settings")
    ap.add_argument("--batch-size", type=int, default=1024,
                    help="lines per encode_batch call (bounds memory with fixed padding)")
    args = ap.parse_args(argv)

    start = time.monotonic()
    tok = Tokenizer.from_file(args.tokenizer)
    if args.no_padding:
        tok.no_padding()
    if args.no_truncation:
        tok.no_truncation()
    # BatchLongest padding would make each line's result depend on its batch;
    # users encode one text at a time, so pad each line alone.  Fixed padding
    # is unaffected by batching and keeps the fast path.
    padding = tok.padding
    per_line = padding is not None and padding.get("length") is None

    lines = read_lines(Path(args.input))
    valid = [(i, s) for i, s in enumerate(lines) if s is not None]
    results: list[dict] = [{"skip": True} for _ in lines]
    for b in range(0, len(valid), args.batch_size):
        chunk = valid[b:b + args.batch_size]
        texts = [s for _, s in chunk]
        # add_special_tokens defaults to True, as in Tokenizer.encode().
        encodings = [tok.encode(t) for t in texts] if per_line else tok.encode_batch(texts)
        for (i, _), e in zip(chunk, encodings):
            results[i] = {"ids": e.ids, "type_ids": e.type_ids, "attention_mask": e.attention_mask,
                          "tokens": e.tokens, "offsets": [list(o) for o in e.offsets]}

    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8", newline="\n") as f:
        for r in results:
            # ensure_ascii keeps the file free of raw U+2028/U+0085 etc., so
            # any JSON-lines reader sees exactly one record per line.
            f.write(json.dumps(r, ensure_ascii=True, separators=(",", ":")) + "\n")
    skipped = len(lines) - len(valid)
    print(f"{len(lines)} lines ({skipped} not UTF-8) -> {out} in {time.monotonic() - start:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
