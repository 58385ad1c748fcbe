#!/usr/bin/env python3
"""Tokenize a corpus with Hugging Face `tokenizers`: the parity tests' ground truth.

Why: the C++ tokenizer is correct when it returns, for every line, exactly
what `tokenizers.Tokenizer.from_file(FILE).encode(line)` returns -- with the
file's own truncation and padding settings unless told otherwise, since that
is what users of the file get.  This script writes that expectation as JSON
lines, with the options of `sieve tokenize` that change the result:

    python tools/hf_tokenize.py --tokenizer FILE --input CORPUS --output OUT.jsonl \
        [--pair] [--max-length N] [--truncation longest_first|only_first|only_second|none] \
        [--stride N] [--no-padding] [--no-special-tokens] [--batch-size N]

Output line i belongs to input line i: {"ids", "tokens", "type_ids",
"attention_mask", "special_tokens_mask", "offsets"} (offsets in characters of
the line, as Python reports them); {"error": message} where `tokenizers`
refuses the input (e.g. only_second truncation of a single text); {"skip":
true} for a line that is not valid UTF-8, so that numbering stays aligned.
With --pair each line is "first<TAB>second", split at the first tab.  The
corpus is split on b"\\n" only: lines may hold \\x0b, \\x0c, U+0085, U+2028,
... which str.splitlines() would also split on.  A final "\\n" does not start
an extra empty line; "\\r" is kept as content.

tests/integration/test_tokenizer_parity.py imports configure() and
encode_all() from here, so this script and the tests agree on what the
reference is.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("TOKENIZERS_PARALLELISM", "true")
from tokenizers import Tokenizer  # noqa: E402

STRATEGIES = ("longest_first", "only_first", "only_second")


@dataclass
class Refused:
    """`tokenizers` raised for this input; Sieve must refuse it too."""

    message: str


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


def configure(tok: Tokenizer, file_truncation: dict | None, file_padding: dict | None, *,
              max_length: int | None = None, strategy: str | None = None, stride: int | None = None,
              untruncated: bool = False, no_padding: bool = False) -> Tokenizer:
    """Set truncation and padding as `sieve tokenize` does for these options.

    file_truncation and file_padding are the file's own settings
    (tok.truncation and tok.padding right after loading), so that one loaded
    tokenizer can be configured again and again.  --max-length enables
    truncation with the strategy given, else the file's, else longest_first,
    and keeps the file's direction; --truncation none (untruncated) removes it.
    """
    file_truncation = file_truncation or {}
    if untruncated:
        tok.no_truncation()
    elif max_length is not None:
        tok.enable_truncation(max_length,
                              stride=stride if stride is not None else file_truncation.get("stride", 0),
                              strategy=strategy or file_truncation.get("strategy", "longest_first"),
                              direction=file_truncation.get("direction", "right"))
    elif file_truncation:
        settings = dict(file_truncation)
        if strategy:
            settings["strategy"] = strategy
        if stride is not None:
            settings["stride"] = stride
        tok.enable_truncation(**settings)
    else:
        tok.no_truncation()
    if file_padding is not None and not no_padding:
        tok.enable_padding(**file_padding)
    else:
        tok.no_padding()
    return tok


def encode_all(tok: Tokenizer, inputs: list, *, add_special_tokens: bool = True, batch_size: int = 2000) -> list:
    """An Encoding per input (a str, or a (first, second) tuple), or Refused.

    encode_batch runs on all cores; a batch that fails because one input is
    refused is encoded again input by input, and so is everything after it
    (where one input is refused, most batches hold one).  With BatchLongest
    padding encode_batch would pad each text to the longest of its batch, so
    each input is encoded alone, as `sieve tokenize` pads each line alone.
    """
    per_line = tok.padding is not None and tok.padding.get("length") is None
    out: list = []
    for start in range(0, len(inputs), batch_size):
        chunk = inputs[start:start + batch_size]
        if not per_line:
            try:
                out.extend(tok.encode_batch(chunk, add_special_tokens=add_special_tokens))
                continue
            except Exception:
                per_line = True
        for item in chunk:
            try:
                if isinstance(item, tuple):
                    out.append(tok.encode(item[0], item[1], add_special_tokens=add_special_tokens))
                else:
                    out.append(tok.encode(item, add_special_tokens=add_special_tokens))
            except BaseException as e:  # a Rust panic arrives as pyo3's PanicException, a BaseException
                if isinstance(e, (KeyboardInterrupt, SystemExit)):
                    raise
                out.append(Refused(str(e)))
    return out


def as_record(result) -> dict:
    if isinstance(result, Refused):
        return {"error": result.message}
    return {"ids": result.ids, "tokens": result.tokens, "type_ids": result.type_ids,
            "attention_mask": result.attention_mask, "special_tokens_mask": result.special_tokens_mask,
            "offsets": [list(o) for o in result.offsets]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokenizer", required=True, help="tokenizer.json")
    ap.add_argument("--input", required=True, help="corpus, one text (or, with --pair, two) per line")
    ap.add_argument("--output", required=True, help="JSON lines, one per input line")
    ap.add_argument("--pair", action="store_true", help='each line is "first<TAB>second"')
    ap.add_argument("--max-length", type=int, help="truncate to N tokens, special tokens included")
    ap.add_argument("--truncation", choices=[*STRATEGIES, "none"], help="strategy, or none to turn it off")
    ap.add_argument("--stride", type=int, help="overlap of the overflowing windows")
    ap.add_argument("--no-truncation", action="store_true", help="same as --truncation none")
    ap.add_argument("--no-padding", action="store_true", help="ignore the file's padding settings")
    ap.add_argument("--no-special-tokens", action="store_true", help="do not add [CLS]/[SEP] or the like")
    ap.add_argument("--batch-size", type=int, default=2000, help="inputs per encode_batch call")
    args = ap.parse_args(argv)

    start = time.monotonic()
    tok = Tokenizer.from_file(args.tokenizer)
    untruncated = args.no_truncation or args.truncation == "none"
    configure(tok, tok.truncation, tok.padding, max_length=args.max_length,
              strategy=None if untruncated else args.truncation, stride=args.stride,
              untruncated=untruncated, no_padding=args.no_padding)

    lines = read_lines(Path(args.input))
    results: list[dict] = [{"skip": True} for _ in lines]
    valid = [(i, s) for i, s in enumerate(lines) if s is not None]
    inputs: list = []
    for i, s in valid:
        if args.pair:
            first, tab, second = s.partition("\t")
            if not tab:
                results[i] = {"error": "--pair needs a tab between the two texts"}
                continue
            inputs.append((first, second))
        else:
            inputs.append(s)
    positions = [i for i, _ in valid if "error" not in results[i]]
    encoded = encode_all(tok, inputs, add_special_tokens=not args.no_special_tokens, batch_size=args.batch_size)
    for i, result in zip(positions, encoded):
        results[i] = as_record(result)

    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8", newline="\n") as f:
        for r in results:
            # ensure_ascii keeps the file free of raw U+2028/U+0085 etc., so
            # any JSON-lines reader sees exactly one record per line.
            f.write(json.dumps(r, ensure_ascii=True, separators=(",", ":")) + "\n")
    skipped = len(lines) - len(valid)
    refused = sum(1 for r in results if "error" in r)
    print(f"{len(lines)} lines ({skipped} not UTF-8, {refused} refused) -> {out} in {time.monotonic() - start:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
