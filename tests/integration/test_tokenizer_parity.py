"""Token ids, type ids and attention masks equal Hugging Face tokenizers' on
every line of the corpus, for every WordPiece tokenizer.json under
../shared/tokenizers/ and for the exported model's own."""
from __future__ import annotations

import json
import os

import pytest

os.environ.setdefault("TOKENIZERS_PARALLELISM", "true")
from tokenizers import Tokenizer  # noqa: E402

from conftest import corpus_lines, model_type, run_sieve, tokenizer_files  # noqa: E402

MIN_CORPUS_LINES = 5000


def valid_lines(lines: list[bytes]) -> list[str]:
    out = []
    for line in lines:
        try:
            out.append(line.decode("utf-8"))
        except UnicodeDecodeError:
            continue
    return out


@pytest.mark.parametrize("tokenizer_file", tokenizer_files(), ids=lambda p: p.parent.name)
def test_ids_match_hugging_face(tokenizer_file, corpus_file):
    kind = model_type(tokenizer_file)
    if kind != "WordPiece":
        pytest.skip(f"{kind} model: supported from the tokenizers issue on")
    texts = valid_lines(corpus_lines(corpus_file))
    assert len(texts) >= MIN_CORPUS_LINES
    reference = Tokenizer.from_file(str(tokenizer_file)).encode_batch(texts)
    payload = ("\n".join(texts) + "\n").encode("utf-8")
    result = run_sieve("tokenize", "--tokenizer", str(tokenizer_file), input=payload)
    outputs = stdout_lines(result.stdout)
    assert len(outputs) == len(texts)
    mismatched = []
    for i, (line, ref) in enumerate(zip(outputs, reference)):
        got = json.loads(line)
        if (got["ids"] != ref.ids or got["type_ids"] != ref.type_ids
                or got["attention_mask"] != ref.attention_mask or got["tokens"] != ref.tokens):
            mismatched.append(i)
    print(f"\n{tokenizer_file.parent.name}: {len(texts)} lines compared, {len(mismatched)} mismatched")
    assert not mismatched, f"first mismatch at line {mismatched[0] + 1}: {texts[mismatched[0]]!r}"


# Uncased (accents stripped, lowercased) and cased (kept): both normalizer paths.
@pytest.mark.parametrize("name", ["bert-base-uncased", "bert-base-cased"])
def test_every_code_point_matches_hugging_face(name, tmp_path):
    """Each Unicode scalar value between two letters: checks the character
    tables (controls, whitespace, punctuation, accents, CJK) exhaustively."""
    from conftest import SHARED_TOKENIZERS
    tokenizer_file = SHARED_TOKENIZERS / name / "tokenizer.json"
    if not tokenizer_file.exists():
        pytest.skip(f"{tokenizer_file} not present")
    texts = [f"a{chr(cp)}b" for cp in range(1, 0x110000)
             if not (0xD800 <= cp <= 0xDFFF) and cp not in (0x0A, 0x0D)]
    tokenizer = Tokenizer.from_file(str(tokenizer_file))
    tokenizer.no_padding()
    reference = tokenizer.encode_batch(texts)
    result = run_sieve("tokenize", "--tokenizer", str(tokenizer_file),
                       input=("\n".join(texts) + "\n").encode("utf-8"))
    outputs = stdout_lines(result.stdout)
    assert len(outputs) == len(texts)
    mismatched = [i for i, (line, ref) in enumerate(zip(outputs, reference)) if json.loads(line)["ids"] != ref.ids]
    print(f"\n{name}: {len(texts)} code points compared, {len(mismatched)} mismatched")
    assert not mismatched, [hex(ord(texts[i][1])) for i in mismatched[:20]]


def test_corpus_has_invalid_utf8_and_sieve_names_it(corpus_file):
    lines = corpus_lines(corpus_file)
    bad = [i for i, line in enumerate(lines) if not _is_utf8(line)]
    assert bad, "the corpus should carry invalid UTF-8 lines"
    from conftest import MODEL, SHARED_TOKENIZERS
    tokenizer_file = SHARED_TOKENIZERS / "bert-base-uncased" / "tokenizer.json"
    if not tokenizer_file.exists():
        tokenizer_file = MODEL / "tokenizer.json"
    result = run_sieve("tokenize", "--tokenizer", str(tokenizer_file), input=b"\n".join(lines) + b"\n", check=False)
    assert result.returncode == 1
    assert f"input {bad[0] + 1}: input is not valid UTF-8" in result.stderr.decode()
    # With replacement every line is tokenized.
    result = run_sieve("tokenize", "--tokenizer", str(tokenizer_file), "--invalid-utf8", "replace",
                       input=b"\n".join(lines) + b"\n")
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
