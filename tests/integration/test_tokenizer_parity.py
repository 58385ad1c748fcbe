"""Ids, type ids, attention masks, special-token masks and character offsets
equal Hugging Face tokenizers' on every line of the corpus, for every
tokenizer.json under ../shared/tokenizers/, the exported model's own, and the
tokenizers that tools/train_tokenizers.py trains to use every component and
option; for single texts and pairs, with and without truncation.  The full
tier (scripts/test.sh --full) compares every line and every code point; the
fast tier, FAST_LINES lines per tokenizer and mode and a share of the code
points, drawn with the run's seed (tier.py), a different sample each commit.

Each tokenizer runs in these modes, each one Sieve run per line group:
  single              every line, whole, with the file's own truncation and
                      padding
  pair                every line as the first text, the corpus shifted by
                      PAIR_SHIFT lines as the second
  single-truncated    every line, in groups with different --max-length,
                      --truncation and --stride (SINGLE_TRUNCATION)
  pair-truncated      every pair, in groups (PAIR_TRUNCATION)
  single-untruncated  every line with --truncation none, for the files that
                      set truncation themselves
Texts are whole in "single" only; the other modes cut each text to its first
CHARS[mode] characters (the same cut for both sides), which keeps the run
within its time budget: a few hundred very long lines hold half the corpus,
"single" already covers them whole, and pairs and truncation depend on the
texts' lengths in tokens, not on what lies beyond the cut.  (Hugging Face
also builds every combination of two texts' overflowing windows, so long
truncated pairs would take minutes.)  Trained tokenizers run the truncated
modes only when their post-processor, padding or truncation settings differ
from the others' (Config.exercise_truncation); a shared file whose content
equals an earlier one but for formatting runs "single" only, and a
byte-identical copy not at all.

A line that Hugging Face refuses (only_second truncation of a single text,
or a pair whose chosen text is too short) must be refused by Sieve too; lines
that are not UTF-8 cannot be given to Hugging Face and are counted as skipped.
Each mode prints "NAME MODE: N lines compared, M mismatched", and the session
ends with all of them (conftest.py's terminal summary).
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import os
import re
import subprocess
import sys
import threading
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import pytest

import tier  # noqa: E402

os.environ.setdefault("TOKENIZERS_PARALLELISM", "true")
from tokenizers import Tokenizer  # noqa: E402

from conftest import (MODEL, ROOT, SHARED_TOKENIZERS, corpus_lines, record_parity, run_sieve,  # noqa: E402
                      sieve_bin, tokenizer_files)

sys.path.insert(0, str(ROOT / "tools"))
import train_tokenizers  # noqa: E402
from hf_tokenize import Refused, configure, encode_all  # noqa: E402

MIN_CORPUS_LINES = 20000
FIELDS = ("ids", "type_ids", "attention_mask", "special_tokens_mask", "offsets")
THREADS = "2"
# Inputs per encode_batch call (a batch that fails is encoded again input by
# input), compared before the next: this bounds the memory the reference holds.
CHUNK = 500
# Far enough that a hard case is rarely paired with its neighbour.
PAIR_SHIFT = 7919
CHARS = {"pair": 150, "single-truncated": 100, "pair-truncated": 80}
# Lengths short enough that most cut texts are truncated (and, with
# only_second on single texts or short chosen texts, refused).
SINGLE_TRUNCATION = [
    dict(max_length=24, strategy="longest_first", stride=0),
    dict(max_length=16, strategy="only_first", stride=4),
    dict(max_length=20, strategy="only_second", stride=0),  # refused whenever truncation is needed
    dict(max_length=5, strategy="longest_first", stride=1),
]
PAIR_TRUNCATION = [
    dict(max_length=24, strategy="longest_first", stride=0),
    dict(max_length=28, strategy="only_second", stride=0),
    dict(max_length=28, strategy="only_first", stride=0),
    dict(max_length=20, strategy="longest_first", stride=4),
]
SHOWN_MISMATCHES = 5
# Lines each tokenizer and mode compares in the fast tier (tier.py), drawn
# from the whole corpus with the run's seed; the full tier compares all.
FAST_LINES = 2000
# The fraction of code points (or lines of them) the fast tier's
# every-code-point tests compare.
FAST_CODE_POINT_SHARE = 8


# ---------------------------------------------------------------- the tokenizers

@dataclass(frozen=True)
class Subject:
    name: str
    shared: Path | None = None  # None: a trained configuration
    modes: tuple[str, ...] = ()


FULL_MODES = ("single", "pair", "single-truncated", "pair-truncated")


def _modes(truncates: bool, truncation_modes: bool = True) -> tuple[str, ...]:
    modes = FULL_MODES if truncation_modes else ("single", "pair")
    return modes + (("single-untruncated",) if truncates else ())


def _content_digest(data: dict) -> str:
    # Old files infer the model type that new ones state.
    model = {k: v for k, v in data["model"].items() if k != "type"}
    return hashlib.sha256(json.dumps({**data, "model": model}, sort_keys=True).encode()).hexdigest()


def subjects() -> list[Subject]:
    """Shared files and trained configurations, each with the modes it runs."""
    out, same_bytes, same_content = [], {}, {}
    for path in tokenizer_files():
        raw = path.read_bytes()
        data = json.loads(raw)
        name = path.parent.name if path.parent.parent == SHARED_TOKENIZERS else f"model:{path.parent.name}"
        digest, content = hashlib.sha256(raw).hexdigest(), _content_digest(data)
        if digest in same_bytes:
            record_parity(f"{name}: same bytes as {same_bytes[digest]}, compared once")
            continue
        same_bytes[digest] = name
        if content in same_content:
            record_parity(f"{name}: same content as {same_content[content]} but for formatting, single mode only")
            out.append(Subject(name, path, ("single",)))
            continue
        same_content[content] = name
        out.append(Subject(name, path, _modes(data.get("truncation") is not None)))
    for config in train_tokenizers.CONFIGS:
        out.append(Subject(f"trained:{config.name}", None,
                           _modes(config.truncation is not None, config.exercise_truncation)))
    return out


SUBJECTS = subjects()
CASES = [(s, mode) for s in SUBJECTS for mode in s.modes]


def subject_path(subject: Subject, trained: Path) -> Path:
    if subject.shared is not None:
        return subject.shared
    return trained / subject.name.removeprefix("trained:") / "tokenizer.json"


# ---------------------------------------------------------------- the corpus

@dataclass
class Texts:
    lines: list[str]  # the corpus lines that are UTF-8
    numbers: list[int]  # their 1-based line numbers in the corpus file
    invalid: int  # lines that are not UTF-8


@pytest.fixture(scope="module")
def texts(corpus_file) -> Texts:
    out = Texts([], [], 0)
    for number, raw in enumerate(corpus_lines(corpus_file), 1):
        try:
            out.lines.append(raw.decode("utf-8"))
            out.numbers.append(number)
        except UnicodeDecodeError:
            out.invalid += 1
    # The whole corpus is always built; the fast tier compares a sample of it.
    assert len(out.lines) >= MIN_CORPUS_LINES
    return out


def pairs_of(lines: list[str], chars: int | None = None) -> list[tuple[str, str]]:
    n = len(lines)
    # Sieve splits a pair at its first tab, so the first text must have none.
    out = [(lines[i].replace("\t", " "), lines[(i + PAIR_SHIFT) % n]) for i in range(n)]
    if chars is not None:
        out = [(a[:chars], b[:chars]) for a, b in out]
    return out


# ---------------------------------------------------------------- both sides

@lru_cache(maxsize=4)
def _loaded(path: str) -> tuple[Tokenizer, dict | None, dict | None]:
    tok = Tokenizer.from_file(path)
    return tok, tok.truncation, tok.padding


def reference(path: Path, truncation: dict | None, untruncated: bool, inputs: list) -> list:
    """Hugging Face's encodings (or Refused) with the file's padding and this
    run's truncation, configured as `sieve tokenize` is by the same options."""
    tok, file_truncation, file_padding = _loaded(str(path))
    configure(tok, file_truncation, file_padding, untruncated=untruncated, **(truncation or {}))
    return encode_all(tok, inputs, batch_size=CHUNK)


class SieveRun:
    """Sieve over all inputs at once, in the background while the reference runs."""

    def __init__(self, path: Path, inputs: list, args: list[str]) -> None:
        if inputs and isinstance(inputs[0], tuple):
            payload = "".join(f"{a}\t{b}\n" for a, b in inputs)
        else:
            payload = "".join(f"{t}\n" for t in inputs)
        self.command = [str(sieve_bin()), "--log-level", "warn", "tokenize", "--tokenizer", str(path), "--offsets",
                        "--threads", THREADS, "--on-error", "skip", *args]
        self.proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.result: tuple[bytes, bytes] = (b"", b"")
        self.thread = threading.Thread(target=self._communicate, args=(payload.encode("utf-8"),))
        self.thread.start()

    def _communicate(self, payload: bytes) -> None:
        self.result = self.proc.communicate(payload, timeout=600)

    def rows(self, expected: int, label: str) -> list[str]:
        """Sieve's output lines, one JSON object each (parsed only when needed)."""
        self.thread.join()
        stdout, stderr = self.result
        if self.proc.returncode != 0:
            message = stderr.decode(errors="replace").strip()
            pytest.fail(f"{label}: sieve exited with {self.proc.returncode}: {message}\n  {' '.join(self.command)}",
                        pytrace=False)
        lines = stdout_lines(stdout)
        assert len(lines) == expected, f"{label}: {expected} inputs but {len(lines)} output lines"
        return lines


# ---------------------------------------------------------------- comparison

@dataclass
class Tally:
    compared: int = 0
    mismatched: int = 0
    refused: int = 0  # refused by both sides
    shown: list[str] = field(default_factory=list)


def _dump(value) -> str:
    return json.dumps(value, separators=(",", ":"))


def _same_as_printed(ref, line: str) -> bool:
    """Fast path: Sieve's line is exactly what these values print as.  Parsing
    20,000 lines of JSON costs more than tokenizing them, and the fields
    printed around "tokens" pin every compared value; any other spelling of
    the same values falls back to a parsed comparison."""
    head = '{"ids":' + _dump(ref.ids) + ',"tokens":'
    tail = (',"type_ids":' + _dump(ref.type_ids) + ',"attention_mask":' + _dump(ref.attention_mask)
            + ',"special_tokens_mask":' + _dump(ref.special_tokens_mask) + ',"offsets":' + _dump(ref.offsets) + "}")
    return line.startswith(head) and line.endswith(tail)


def compare(tally: Tally, group: str, inputs: list, numbers: list[int], refs: list, lines: list[str]) -> None:
    for item, number, ref, line in zip(inputs, numbers, refs, lines):
        tally.compared += 1
        if not isinstance(ref, Refused) and _same_as_printed(ref, line):
            continue
        got = json.loads(line)
        if isinstance(ref, Refused) or "error" in got:
            if isinstance(ref, Refused) and "error" in got:
                tally.refused += 1
                continue
            diff = "refused by one side only"
        else:
            diff = next((f for f in FIELDS if _field(ref, f) != _sieve_field(got, f)), None)
            if diff is None:
                continue
        tally.mismatched += 1
        if len(tally.shown) < SHOWN_MISMATCHES:
            tally.shown.append(_describe(group, item, number, ref, got, diff))


def _field(enc, name: str):
    return getattr(enc, name)


def _sieve_field(row: dict, name: str):
    value = row.get(name)
    if name == "offsets" and value is not None:
        return [tuple(o) for o in value]
    return value


def _describe(group: str, item, number: int, ref, got: dict, diff: str) -> str:
    def clip(s: str, n: int = 600) -> str:
        return s if len(s) <= n else s[:n] + f"... ({len(s)} chars)"
    if isinstance(ref, Refused):
        hf = {"error": ref.message}
    else:
        hf = {"tokens": ref.tokens, **{f: _field(ref, f) for f in FIELDS}}
        hf["offsets"] = [list(o) for o in hf["offsets"]]
    text = f"{item[0]!r} + {item[1]!r}" if isinstance(item, tuple) else repr(item)
    first = ""
    if diff in FIELDS and not isinstance(ref, Refused):
        a, b = _field(ref, diff), _sieve_field(got, diff) or []
        k = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        first = f" (first difference at token {k})"
    return (f"corpus line {number} [{group}]: {diff} differs{first}\n"
            f"    text:   {clip(text, 300)}\n"
            f"    hf:     {clip(json.dumps(hf, ensure_ascii=False))}\n"
            f"    sieve:  {clip(json.dumps(got, ensure_ascii=False))}")


# ---------------------------------------------------------------- the test

@pytest.mark.parametrize("subject,mode", CASES, ids=[f"{s.name}-{m}" for s, m in CASES])
def test_matches_hugging_face(subject, mode, texts, trained_tokenizers):
    path = subject_path(subject, trained_tokenizers)
    label = f"{subject.name} {mode}"
    assert path.is_file(), f"{label}: {path} missing"

    groups: list[tuple[str, dict | None]]
    if mode == "single-truncated":
        groups = [(_group_name(t), t) for t in SINGLE_TRUNCATION]
    elif mode == "pair-truncated":
        groups = [(_group_name(t), t) for t in PAIR_TRUNCATION]
    else:
        groups = [(mode, None)]
    pair = mode.startswith("pair")
    untruncated = mode == "single-untruncated"
    chars = CHARS.get(mode)
    every_input = pairs_of(texts.lines, chars) if pair else \
        [t[:chars] for t in texts.lines] if chars else texts.lines
    # Pairs are made from the whole corpus first, so a sampled pair is the one the full tier compares.
    chosen = tier.sample_indices(len(every_input), FAST_LINES, f"parity:{subject.name}:{mode}")
    all_inputs = [every_input[i] for i in chosen]
    all_numbers = [texts.numbers[i] for i in chosen]

    tally = Tally()
    try:
        for g, (group, truncation) in enumerate(groups):
            # Line i goes to group i mod len(groups): every line is compared once.
            inputs = all_inputs[g::len(groups)]
            numbers = all_numbers[g::len(groups)]
            args = ["--pair"] if pair else []
            if untruncated:
                args += ["--truncation", "none"]
            elif truncation is not None:
                args += ["--max-length", str(truncation["max_length"]), "--truncation", truncation["strategy"],
                         "--stride", str(truncation["stride"])]
            sieve = SieveRun(path, inputs, args)
            rows: list[str] | None = None
            # The reference goes chunk by chunk, compared and dropped: with
            # truncation Hugging Face keeps every overflowing window (and
            # for pairs every combination of windows, padded), gigabytes
            # for a whole group.
            for start in range(0, len(inputs), CHUNK):
                part = slice(start, start + CHUNK)
                refs = reference(path, truncation, untruncated, inputs[part])
                if rows is None:
                    rows = sieve.rows(len(inputs), f"{label} [{group}] ({path})")
                compare(tally, group, inputs[part], numbers[part], refs, rows[part])
                del refs
                _return_freed_memory()
    except BaseException as e:
        reason = str(e).strip().splitlines()[0][:300] if str(e).strip() else type(e).__name__
        summary = (f"{label}: failed to run after {tally.compared} lines compared, {tally.mismatched} mismatched"
                   f" ({reason})")
        print(f"\n{summary}")
        record_parity(summary)
        raise

    summary = f"{label}: {tally.compared} lines compared, {tally.mismatched} mismatched"
    notes = [f"sampled from {len(every_input)}"] if len(all_inputs) < len(every_input) else []
    if texts.invalid:
        notes.append(f"{texts.invalid} not UTF-8 skipped")
    if tally.refused:
        notes.append(f"{tally.refused} refused by both")
    if notes:
        summary += "; " + ", ".join(notes)
    print(f"\n{summary}")
    record_parity(summary)
    assert tally.compared == len(all_inputs)
    assert not tally.mismatched, (f"{summary} ({path})\n" + "\n".join(tally.shown))


def _return_freed_memory() -> None:
    """Hands memory freed by the reference's Rust allocations back to the
    system (glibc keeps it in per-thread arenas otherwise, and the resident
    size of a long session grows with every tokenizer)."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _group_name(t: dict) -> str:
    return f"{t['strategy']} max {t['max_length']} stride {t['stride']}"


# ---------------------------------------------------------------- character tables

# Uncased (accents stripped, lowercased) and cased (kept): both normalizer paths.
@pytest.mark.parametrize("name", ["bert-base-uncased", "bert-base-cased"])
def test_every_code_point_matches_hugging_face(name, tmp_path):
    """Each Unicode scalar value between two letters: checks the character
    tables (controls, whitespace, punctuation, accents, CJK) exhaustively."""
    tokenizer_file = SHARED_TOKENIZERS / name / "tokenizer.json"
    if not tokenizer_file.exists():
        pytest.skip(f"{tokenizer_file} not present")
    every = [f"a{chr(cp)}b" for cp in range(1, 0x110000) if not (0xD800 <= cp <= 0xDFFF) and cp not in (0x0A, 0x0D)]
    texts = tier.sample(every, len(every) // FAST_CODE_POINT_SHARE, f"every-code-point:{name}")
    tokenizer = Tokenizer.from_file(str(tokenizer_file))
    tokenizer.no_padding()
    reference = tokenizer.encode_batch(texts)
    result = run_sieve("tokenize", "--tokenizer", str(tokenizer_file), "--threads", THREADS,
                       input=("\n".join(texts) + "\n").encode("utf-8"))
    outputs = stdout_lines(result.stdout)
    assert len(outputs) == len(texts)
    mismatched = [i for i, (line, ref) in enumerate(zip(outputs, reference)) if json.loads(line)["ids"] != ref.ids]
    summary = f"{name} every-code-point: {len(texts)} of {len(every)} lines compared, {len(mismatched)} mismatched"
    print(f"\n{summary}")
    record_parity(summary)
    assert not mismatched, [hex(ord(texts[i][1])) for i in mismatched[:20]]


# Every code point Unicode assigns (through 17.0's planes) and the private and
# special-purpose ones, in lines of 256; line ends left out.
def _all_code_point_lines() -> list[str]:
    points = [cp for cp in list(range(0x20, 0x323B0)) + list(range(0xE0000, 0xE01F0)) + list(range(0xF0000, 0xF0100))
              if not (0xD800 <= cp <= 0xDFFF) and cp not in (0x0A, 0x0D)]
    return ["".join(chr(cp) for cp in points[i:i + 256]) for i in range(0, len(points), 256)]


# The patterns' properties as Oniguruma (Unicode 16) knows them, in and out of
# character classes, negated both ways, by short and long names.
REGEX_PROPERTIES = [r"\p{L}", r"\p{Lu}", r"\p{Ll}", r"\p{Lt}", r"\p{Lm}", r"\p{Lo}", r"\p{M}", r"\p{Mn}", r"\p{Mc}",
                    r"\p{N}", r"\p{Nd}", r"\p{Nl}", r"\p{No}", r"\p{P}", r"\p{Po}", r"\p{S}", r"\p{Sm}", r"\p{So}",
                    r"\p{Z}", r"\p{Cf}", r"\p{Cn}", r"\p{Letter}", r"\w", r"\W", r"\d", r"\D", r"\s", r"\S",
                    r"\P{L}", r"\p{^N}", r"[^\s\p{L}\p{N}]", r"[\w\p{P}]", r"[^\w]", r"[\P{L}\d]", r"[\p{Mn}x]"]


def _unk_only_tokenizer(pre_tokenizer, normalizer=None):
    from tokenizers import models
    tokenizer = Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizer
    if normalizer is not None:
        tokenizer.normalizer = normalizer
    return tokenizer


def _compare_every_code_point(label: str, tokenizer: Tokenizer, tmp_path, field: str) -> None:
    path = tmp_path / "tokenizer.json"
    tokenizer.save(str(path))
    every = _all_code_point_lines()
    lines = tier.sample(every, len(every) // FAST_CODE_POINT_SHARE, f"every-code-point:{label}")
    reference = tokenizer.encode_batch(lines)
    result = run_sieve("tokenize", "--tokenizer", str(path), "--offsets", "--threads", THREADS,
                       input=("\n".join(lines) + "\n").encode("utf-8"))
    outputs = stdout_lines(result.stdout)
    assert len(outputs) == len(lines)
    mismatched = []
    for i, (line, ref) in enumerate(zip(outputs, reference)):
        got = json.loads(line)
        want = [list(o) for o in ref.offsets] if field == "offsets" else ref.ids
        if [list(o) for o in got[field]] != want if field == "offsets" else got[field] != want:
            mismatched.append(i)
    summary = f"{label} every-code-point: {len(lines)} of {len(every)} lines compared, {len(mismatched)} mismatched"
    print(f"\n{summary}")
    record_parity(summary)
    assert not mismatched, lines[mismatched[0]][:40]


@pytest.mark.parametrize("pattern", REGEX_PROPERTIES)
def test_regex_properties_match_oniguruma_on_every_code_point(pattern, tmp_path):
    """Split (isolated) by one property: token offsets show exactly which code
    points the pattern matched, so PCRE2's rewritten pattern must match the
    same set as Hugging Face's Oniguruma."""
    from tokenizers import Regex, pre_tokenizers
    tokenizer = _unk_only_tokenizer(pre_tokenizers.Split(Regex(pattern), behavior="isolated"))
    _compare_every_code_point(f"regex {pattern}", tokenizer, tmp_path, "offsets")


@pytest.mark.parametrize("component", ["Digits", "Whitespace", "Lowercase"])
def test_rust_char_methods_match_on_every_code_point(component, tmp_path):
    """Rust's char::is_numeric (Digits), the regex crate's \\w (Whitespace) and
    char::to_lowercase (Lowercase, seen through a vocabulary of every character)."""
    from tokenizers import Regex, models, normalizers, pre_tokenizers
    if component == "Digits":
        tokenizer = _unk_only_tokenizer(pre_tokenizers.Digits(individual_digits=True))
    elif component == "Whitespace":
        tokenizer = _unk_only_tokenizer(pre_tokenizers.Whitespace())
    else:
        vocab = {"[UNK]": 0}
        for cp in range(0x20, 0x323B0):
            if not (0xD800 <= cp <= 0xDFFF):
                vocab.setdefault(chr(cp), len(vocab))
        tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
        tokenizer.normalizer = normalizers.Lowercase()
        tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex("."), behavior="isolated")
    _compare_every_code_point(component, tokenizer, tmp_path, "offsets" if component != "Lowercase" else "ids")


# ---------------------------------------------------------------- invalid UTF-8

def test_corpus_has_invalid_utf8_and_sieve_names_it(corpus_file):
    lines = corpus_lines(corpus_file)
    bad = [i for i, line in enumerate(lines) if not _is_utf8(line)]
    assert bad, "the corpus should carry invalid UTF-8 lines"
    tokenizer_file = SHARED_TOKENIZERS / "bert-base-uncased" / "tokenizer.json"
    if not tokenizer_file.exists():
        tokenizer_file = MODEL / "tokenizer.json"
    result = run_sieve("tokenize", "--tokenizer", str(tokenizer_file), input=b"\n".join(lines) + b"\n", check=False)
    assert result.returncode == 1
    assert f"input {bad[0] + 1}: input is not valid UTF-8" in result.stderr.decode()
    # With replacement every line is tokenized.
    result = run_sieve("tokenize", "--tokenizer", str(tokenizer_file), "--invalid-utf8", "replace",
                       "--threads", THREADS, input=b"\n".join(lines) + b"\n")
    assert len(stdout_lines(result.stdout)) == len(lines)


def stdout_lines(data: bytes) -> list[str]:
    # Split on "\n" only: token strings may hold U+2028 or U+0085, which
    # str.splitlines() would also treat as line ends.
    lines = data.decode("utf-8").split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


# ---------------------------------------------------------------- the corpus itself

def test_corpus_covers_what_parity_needs(corpus_file):
    """The corpus keeps the content the parity requirement names."""
    raw = corpus_lines(corpus_file)
    lines = [line.decode("utf-8") for line in raw if _is_utf8(line)]
    assert len(lines) >= MIN_CORPUS_LINES
    assert len(raw) - len(lines) >= 100, "invalid UTF-8 lines"
    scripts = set()
    for line in lines[::7]:
        for ch in line[:200]:
            if ch.isalpha():
                scripts.add(unicodedata.name(ch, "? ?").split(" ")[0])
    counts = {
        "scripts (first word of letter names)": (len(scripts), 60),
        "long lines (>= 2,000 characters)": (sum(len(t) >= 2000 for t in lines), 100),
        "long words (>= 100 characters without a space)": (
            sum(any(len(w) >= 100 for w in t.split()) for t in lines), 300),
        "runs of one character or unit (>= 20)": (sum(bool(re.search(r"(.{1,3})\1{19}", t)) for t in lines), 150),
        "unusual whitespace": (sum(any(c in t for c in "\x0b\x0c\x1c\x85\xa0\u1680\u2000\u2028\u3000\ufeff")
                                   for t in lines), 1000),
        "combining marks": (sum(any(unicodedata.category(c) == "Mn" for c in t) for t in lines), 2000),
        "emoji ZWJ sequences": (sum("\u200d" in t and any(ord(c) >= 0x1F300 for c in t) for t in lines), 300),
    }
    short = {k: v for k, (v, least) in counts.items() if v < least}
    assert not short, f"too few lines with: {short}"
