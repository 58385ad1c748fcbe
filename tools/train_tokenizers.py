#!/usr/bin/env python3
"""Train small tokenizers that together use every tokenizer.json component and option.

Why: the tokenizer.json files found in the wild use only a few of the
components Hugging Face `tokenizers` offers.  Sieve must read any of them, so
the parity tests also run on tokenizers made here: WordPiece, BPE, byte-level
BPE, Unigram and WordLevel models, each normalizer and pre-tokenizer alone and
in sequences, every Split behaviour, the post-processors, added tokens with
each flag, and padding and truncation settings stored in the file.

    python tools/train_tokenizers.py --out DIR [--only NAME ...] [--list]

writes DIR/NAME/tokenizer.json for each configuration (CONFIGS) and, last,
DIR/STAMP, which changes whenever this script, tools/build_corpus.py or the
`tokenizers` version does (the tests reuse a folder whose stamp matches).
Training text comes from tools/build_corpus.py with its own seed, so the
output depends only on these scripts, the packaged data files and the
`tokenizers` version.  A few options no trainer sets (byte fallback tokens,
ignore_merges, another WordPiece prefix, ...) are edited into the JSON after
training; every file is then loaded again with `tokenizers` to check that it is
valid and written as `tokenizers` serializes it.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

os.environ.setdefault("TOKENIZERS_PARALLELISM", "true")
import tokenizers  # noqa: E402
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers  # noqa: E402
from tokenizers import processors, trainers  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import build_corpus  # noqa: E402

TRAIN_SEED = 7
TRAIN_LINES = 3000
UNIGRAM_LINES = 1500  # the Unigram trainer is by far the slowest
# Characters kept in the training text, the rest being unknown to every
# model.  Limiting it here rather than with the trainers' limit_alphabet keeps
# training deterministic: they break frequency ties in hash order.
ALPHABET = 800
STAMP = "STAMP"

WORDPIECE_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
BPE_SPECIALS = ["<unk>", "<s>", "</s>", "<pad>", "<mask>"]
UNIGRAM_SPECIALS = ["<pad>", "</s>", "<unk>", "<s>"]
# GPT-4 / Llama 3 style pre-tokenization regex, used with ByteLevel(use_regex=False).
LLAMA3_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                  r"|\s*[\r\n]+|\s+(?!\S)|\s+")

SPECIAL, ADDED, LSTRIP, RSTRIP, WORD, SPACED, MASK_BPE, MASK_WP = build_corpus.ADDED_TOKEN_STRINGS


# ---------------------------------------------------------------- training

def training_text() -> tuple[list[str], list[str]]:
    """(lines for the BPE and WordPiece trainers, lines for the Unigram trainer)."""
    corpus = build_corpus.Corpus(random.Random(TRAIN_SEED), allow_missing=True)
    gens = [corpus.g_english, corpus.g_foreign, corpus.g_foreign, corpus.g_mixed_language, corpus.g_numbers,
            corpus.g_url_code, corpus.g_punct, corpus.g_case, corpus.g_special, corpus.g_emoji,
            corpus.g_script_text]
    lines = []
    for i in range(TRAIN_LINES):
        # Long "words" make the Unigram trainer's likelihood overflow; the
        # tokenizers meet the corpus's odd spaces and long words anyway.
        words = [w for w in gens[i % len(gens)]().split() if len(w) <= 24]
        lines.append(" ".join(words)[:200])
    counts = collections.Counter("".join(lines))
    keep = {ch for ch, _ in counts.most_common(ALPHABET)}
    lines = ["".join(ch for ch in line if ch in keep) for line in lines]
    return lines, lines[:UNIGRAM_LINES]


@dataclass
class Recipe:
    """How to train one base model; several configurations share it."""

    model: Callable[[], models.Model]
    trainer: Callable[[], trainers.Trainer]
    normalizer: Callable[[], normalizers.Normalizer] | None = None
    pre_tokenizer: Callable[[], pre_tokenizers.PreTokenizer] | None = None
    unigram: bool = False
    derive: str | None = None  # "wordpiece" or "prefix-suffix": see derive_wordpiece, derive_prefix_suffix


RECIPES = {
    # WordPiece vocabularies and the prefix/suffix BPE are derived from plain
    # BPE training (derive=...): the trainers' own continuing_subword_prefix
    # and end_of_word_suffix number the new symbols in hash order, so their
    # output differs from run to run.
    "wordpiece-bert": Recipe(
        model=lambda: models.BPE(unk_token="[UNK]"),
        trainer=lambda: trainers.BpeTrainer(vocab_size=2500, show_progress=False, special_tokens=WORDPIECE_SPECIALS),
        normalizer=lambda: normalizers.BertNormalizer(), pre_tokenizer=lambda: pre_tokenizers.BertPreTokenizer(),
        derive="wordpiece"),
    "wordpiece-cased": Recipe(
        model=lambda: models.BPE(unk_token="[UNK]"),
        trainer=lambda: trainers.BpeTrainer(vocab_size=3000, show_progress=False, special_tokens=WORDPIECE_SPECIALS),
        normalizer=lambda: normalizers.NFC(), pre_tokenizer=lambda: pre_tokenizers.Whitespace(),
        derive="wordpiece"),
    "bpe-whitespace": Recipe(
        model=lambda: models.BPE(unk_token="<unk>"),
        trainer=lambda: trainers.BpeTrainer(vocab_size=4000, show_progress=False, special_tokens=BPE_SPECIALS),
        normalizer=lambda: normalizers.NFC(), pre_tokenizer=lambda: pre_tokenizers.Whitespace()),
    "bpe-suffix": Recipe(
        model=lambda: models.BPE(unk_token="<unk>"),
        trainer=lambda: trainers.BpeTrainer(vocab_size=1500, show_progress=False, special_tokens=BPE_SPECIALS),
        normalizer=lambda: normalizers.Sequence([normalizers.NFC(), normalizers.Lowercase()]),
        pre_tokenizer=lambda: pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(),
                                                       pre_tokenizers.Punctuation()]),
        derive="prefix-suffix"),
    "bpe-metaspace": Recipe(
        model=lambda: models.BPE(unk_token="<unk>"),
        trainer=lambda: trainers.BpeTrainer(vocab_size=3000, show_progress=False, special_tokens=BPE_SPECIALS),
        pre_tokenizer=lambda: pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first")),
    "byte-level": Recipe(
        model=lambda: models.BPE(),
        trainer=lambda: trainers.BpeTrainer(vocab_size=4000, show_progress=False, special_tokens=BPE_SPECIALS,
                                            initial_alphabet=pre_tokenizers.ByteLevel.alphabet()),
        pre_tokenizer=lambda: pre_tokenizers.ByteLevel(add_prefix_space=False)),
    "unigram": Recipe(
        model=lambda: models.Unigram(),
        trainer=lambda: trainers.UnigramTrainer(vocab_size=2500, show_progress=False, special_tokens=UNIGRAM_SPECIALS,
                                                unk_token="<unk>", max_piece_length=8, shrinking_factor=0.5,
                                                n_sub_iterations=1),
        normalizer=lambda: normalizers.NFKC(), pre_tokenizer=lambda: pre_tokenizers.Metaspace(),
        unigram=True),
    "wordlevel": Recipe(
        model=lambda: models.WordLevel(unk_token="[UNK]"),
        trainer=lambda: trainers.WordLevelTrainer(vocab_size=4000, show_progress=False,
                                                  special_tokens=WORDPIECE_SPECIALS),
        normalizer=lambda: normalizers.Lowercase(), pre_tokenizer=lambda: pre_tokenizers.Whitespace()),
}


def _non_special(model: dict, specials: list[str]) -> list[str]:
    return [t for t, _ in sorted(model["vocab"].items(), key=lambda kv: kv[1]) if t not in specials]


def derive_wordpiece(model: dict, specials: list[str]) -> dict:
    """A WordPiece vocabulary from a plain BPE one: each token, also as a continuation."""
    tokens = _non_special(model, specials)
    vocab = specials + tokens + ["##" + t for t in tokens]
    return {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 100, "vocab": {t: i for i, t in enumerate(vocab)}}


def derive_prefix_suffix(model: dict, specials: list[str], prefix: str = "##", suffix: str = "</w>") -> dict:
    """The BPE that a trainer with continuing_subword_prefix and end_of_word_suffix
    would make from the same merges: every symbol in its four forms (word start
    or not, word end or not), every merge for each."""
    def forms(t: str) -> list[str]:
        return [t, prefix + t, t + suffix, prefix + t + suffix]
    vocab: list[str] = list(specials)
    seen = set(vocab)
    merges = []
    for t in _non_special(model, specials):
        for f in forms(t):
            if f not in seen:
                seen.add(f)
                vocab.append(f)
    for a, b in model["merges"]:
        # (start or inner) + (inner or end), as the trainer builds new tokens
        for left, right, result in ((a, prefix + b, a + b), (prefix + a, prefix + b, prefix + a + b),
                                    (a, prefix + b + suffix, a + b + suffix),
                                    (prefix + a, prefix + b + suffix, prefix + a + b + suffix)):
            assert left in seen and right in seen and result in seen, (left, right, result)
            merges.append([left, right])
    return dict(model, vocab={t: i for i, t in enumerate(vocab)}, merges=merges,
                continuing_subword_prefix=prefix, end_of_word_suffix=suffix)


def canonical_unigram(model: dict, specials: list[str]) -> dict:
    """The same model from run to run.  The trainer gives the characters it
    must keep a ladder of scores (each 1e-4 below the last) in hash order,
    and parallel training sums scores in varying order: flatten the ladder to
    one score, round the rest, and order pieces by score, then text."""
    head = [[p, s] for p, s in model["vocab"] if p in specials]
    rest = sorted(([p, s] for p, s in model["vocab"] if p not in specials), key=lambda ps: -ps[1])
    floor = None
    for i in range(len(rest) - 3):
        if all(abs(rest[j][1] - rest[j + 1][1] - 1e-4) < 1e-7 for j in range(i, i + 3)):
            floor = rest[i][1]
            break
    for ps in rest:
        ps[1] = round(floor if floor is not None and ps[1] <= floor + 1e-7 else ps[1], 4)
    rest.sort(key=lambda ps: (-ps[1], ps[0]))
    vocab = head + rest
    unk = model["vocab"][model["unk_id"]][0]
    return dict(model, vocab=vocab, unk_id=[p for p, _ in vocab].index(unk))


def train(recipe: Recipe, lines: list[str], unigram_lines: list[str]) -> str:
    tok = Tokenizer(recipe.model())
    if recipe.normalizer:
        tok.normalizer = recipe.normalizer()
    if recipe.pre_tokenizer:
        tok.pre_tokenizer = recipe.pre_tokenizer()
    trainer = recipe.trainer()
    tok.train_from_iterator(unigram_lines if recipe.unigram else lines, trainer)
    data = json.loads(tok.to_str())
    specials = [t["content"] for t in data["added_tokens"]]
    if recipe.derive == "wordpiece":
        data["model"] = derive_wordpiece(data["model"], specials)
    elif recipe.derive == "prefix-suffix":
        data["model"] = derive_prefix_suffix(data["model"], specials)
    elif recipe.unigram:
        data["model"] = canonical_unigram(data["model"], specials)
    return json.dumps(data, ensure_ascii=False)


# ---------------------------------------------------------------- configurations

def _no(_: object = None) -> None:
    return None


@dataclass
class Config:
    """One trained tokenizer: a recipe's model and the pipeline put around it."""

    name: str
    recipe: str
    covers: str  # what this configuration is for, shown by --list
    normalizer: Callable[[], normalizers.Normalizer | None] = _no
    pre_tokenizer: Callable[[], pre_tokenizers.PreTokenizer | None] = _no
    post_processor: Callable[[Tokenizer], processors.PostProcessor | None] = _no
    decoder: Callable[[], decoders.Decoder | None] = _no
    added: Callable[[], list[AddedToken]] = list  # added after the pipeline is set (normalized ones need it)
    padding: dict | None = None  # Tokenizer.enable_padding arguments
    truncation: dict | None = None  # Tokenizer.enable_truncation arguments
    edit_model: Callable[[dict], None] | None = None  # JSON edits of "model": what no trainer sets
    keep_recipe_pipeline: bool = False  # keep the normalizer and pre-tokenizer it was trained with
    # The parity tests' truncated modes: for the configurations whose
    # post-processor, padding or truncation differs from the others'.
    exercise_truncation: bool = False


def _ids(tok: Tokenizer, *tokens: str) -> list[tuple[str, int]]:
    out = []
    for t in tokens:
        i = tok.token_to_id(t)
        assert i is not None, t
        out.append((t, i))
    return out


def bert_template(tok: Tokenizer) -> processors.PostProcessor:
    return processors.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
                                         special_tokens=_ids(tok, "[CLS]", "[SEP]"))


def all_flag_tokens(mask: str) -> list[AddedToken]:
    """The added-token flags, each on its own token (strings from build_corpus)."""
    return [
        AddedToken(SPECIAL, special=True, normalized=False),
        AddedToken(ADDED, normalized=True),
        AddedToken(LSTRIP, lstrip=True, normalized=False),
        AddedToken(RSTRIP, rstrip=True, normalized=False),
        AddedToken(WORD, single_word=True, normalized=False),
        AddedToken(SPACED, normalized=False),
        AddedToken(mask, special=True, lstrip=True, normalized=True),
    ]


def byte_tokens_bpe(model: dict) -> None:
    """Byte fallback needs <0x00>..<0xFF> in the vocabulary; no trainer adds them."""
    vocab = model["vocab"]
    next_id = max(vocab.values()) + 1
    for b in range(256):
        name = f"<0x{b:02X}>"
        if name not in vocab:
            vocab[name] = next_id
            next_id += 1
    model["byte_fallback"] = True


def byte_tokens_unigram(model: dict) -> None:
    lowest = min(score for _, score in model["vocab"])
    model["vocab"].extend([f"<0x{b:02X}>", lowest - 1.0] for b in range(256))
    model["byte_fallback"] = True


def set_model(**values: object) -> Callable[[dict], None]:
    def edit(model: dict) -> None:
        model.update(values)
    return edit


def wordpiece_prefix(prefix: str) -> Callable[[dict], None]:
    def edit(model: dict) -> None:
        model["vocab"] = {(prefix + k[2:] if k.startswith("##") else k): v for k, v in model["vocab"].items()}
        model["continuing_subword_prefix"] = prefix
    return edit


def _seq(*edits: Callable[[dict], None]) -> Callable[[dict], None]:
    def edit(model: dict) -> None:
        for e in edits:
            e(model)
    return edit


N, P, PP, D = normalizers, pre_tokenizers, processors, decoders

CONFIGS: list[Config] = [
    # ---- WordPiece
    Config("wp-bert", "wordpiece-bert", exercise_truncation=True, covers="BertNormalizer defaults, BertPreTokenizer, [CLS]/[SEP] template, "
           "special and normalized added tokens", normalizer=lambda: N.BertNormalizer(),
           pre_tokenizer=lambda: P.BertPreTokenizer(), post_processor=bert_template, decoder=lambda: D.WordPiece(),
           added=lambda: [AddedToken(SPECIAL, special=True, normalized=False), AddedToken("<ADDED>", normalized=True),
                          AddedToken(SPACED, normalized=True), AddedToken("<sp-norm>", special=True, normalized=True)]),
    Config("wp-bert-options", "wordpiece-bert", exercise_truncation=True, covers="BertNormalizer without cleaning or CJK spacing, accents "
           "stripped but case kept; BertProcessing; rstrip and single_word tokens",
           normalizer=lambda: N.BertNormalizer(clean_text=False, handle_chinese_chars=False, strip_accents=True,
                                               lowercase=False),
           pre_tokenizer=lambda: P.BertPreTokenizer(),
           post_processor=lambda t: PP.BertProcessing(("[SEP]", t.token_to_id("[SEP]")),
                                                      ("[CLS]", t.token_to_id("[CLS]"))),
           added=lambda: [AddedToken(RSTRIP, rstrip=True), AddedToken(WORD, single_word=True),
                          AddedToken(LSTRIP, lstrip=True, rstrip=True, single_word=True)]),
    Config("wp-bert-keep-accents", "wordpiece-bert", exercise_truncation=True, covers="BertNormalizer lowercase with strip_accents false, "
           "Whitespace, one-sided template, padding to a multiple of 8",
           normalizer=lambda: N.BertNormalizer(lowercase=True, strip_accents=False),
           pre_tokenizer=lambda: P.Whitespace(),
           post_processor=lambda t: PP.TemplateProcessing(
               single="$A [SEP]", pair="[CLS] $A [SEP] [SEP] $B:1 [SEP]:1",
               special_tokens=_ids(t, "[CLS]", "[SEP]")),
           padding=dict(pad_to_multiple_of=8, pad_id=0, pad_token="[PAD]")),
    Config("wp-nfkc-lower-strip", "wordpiece-bert", exercise_truncation=True, covers="Sequence[NFKC, Lowercase, StripAccents], Whitespace, "
           "fixed left padding rounded up to a multiple, pad type id 1",
           normalizer=lambda: N.Sequence([N.NFKC(), N.Lowercase(), N.StripAccents()]),
           pre_tokenizer=lambda: P.Whitespace(), post_processor=bert_template,
           padding=dict(direction="left", length=40, pad_to_multiple_of=16, pad_id=0, pad_token="[PAD]",
                        pad_type_id=1)),
    Config("wp-nfd-punctuation", "wordpiece-cased", "Sequence[NFD, StripAccents], WhitespaceSplit + "
           "Punctuation(isolated), max_input_chars_per_word 12",
           normalizer=lambda: N.Sequence([N.NFD(), N.StripAccents()]),
           pre_tokenizer=lambda: P.Sequence([P.WhitespaceSplit(), P.Punctuation("isolated")]),
           post_processor=bert_template, edit_model=set_model(max_input_chars_per_word=12)),
    Config("wp-punct-removed", "wordpiece-cased", "Punctuation(removed), NFKD",
           normalizer=lambda: N.NFKD(),
           pre_tokenizer=lambda: P.Sequence([P.WhitespaceSplit(), P.Punctuation("removed")])),
    Config("wp-punct-previous-digits", "wordpiece-cased", "Punctuation(merged_with_previous), "
           "Digits(individual_digits=True), no normalizer",
           pre_tokenizer=lambda: P.Sequence([P.WhitespaceSplit(), P.Punctuation("merged_with_previous"),
                                             P.Digits(individual_digits=True)]),
           post_processor=bert_template),
    Config("wp-chardelim-next-digits", "wordpiece-cased", "CharDelimiterSplit(' '), Punctuation(merged_with_next), "
           "Digits(individual_digits=False), NFC + Lowercase",
           normalizer=lambda: N.Sequence([N.NFC(), N.Lowercase()]),
           pre_tokenizer=lambda: P.Sequence([P.CharDelimiterSplit(" "), P.Punctuation("merged_with_next"),
                                             P.Digits(individual_digits=False)])),
    Config("wp-scripts-contiguous", "wordpiece-cased", "UnicodeScripts + Punctuation(contiguous), "
           "continuing_subword_prefix '@@'",
           pre_tokenizer=lambda: P.Sequence([P.WhitespaceSplit(), P.UnicodeScripts(), P.Punctuation("contiguous")]),
           decoder=lambda: D.WordPiece(prefix="@@"), edit_model=wordpiece_prefix("@@"),
           post_processor=bert_template),
    Config("wp-unicode-scripts", "wordpiece-cased", "UnicodeScripts alone, NFC",
           normalizer=lambda: N.NFC(), pre_tokenizer=lambda: P.UnicodeScripts()),
    Config("wp-fixed-length", "wordpiece-cased", "FixedLength(5) after WhitespaceSplit",
           pre_tokenizer=lambda: P.Sequence([P.WhitespaceSplit(), P.FixedLength(length=5)])),
    # ---- BPE
    Config("bpe-plain", "bpe-whitespace", exercise_truncation=True, covers="BPE with unk, no normalizer, Whitespace, added tokens with each flag",
           pre_tokenizer=lambda: P.Whitespace(), decoder=lambda: D.BPEDecoder(suffix=""),
           added=lambda: all_flag_tokens(MASK_BPE)),
    Config("bpe-fuse-unk", "bpe-whitespace", exercise_truncation=True, covers="fuse_unk, NFC, WhitespaceSplit, roberta-like template",
           normalizer=lambda: N.NFC(), pre_tokenizer=lambda: P.WhitespaceSplit(),
           post_processor=lambda t: PP.TemplateProcessing(
               single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=_ids(t, "<s>", "</s>")),
           edit_model=set_model(fuse_unk=True)),
    Config("bpe-no-unk", "bpe-whitespace", "no unk token (unknown characters are dropped), Digits individual",
           pre_tokenizer=lambda: P.Sequence([P.Whitespace(), P.Digits(individual_digits=True)]),
           edit_model=set_model(unk_token=None)),
    Config("bpe-suffix", "bpe-suffix", exercise_truncation=True, covers="continuing_subword_prefix + end_of_word_suffix, Lowercase, "
           "BPEDecoder, RobertaProcessing", keep_recipe_pipeline=True, decoder=lambda: D.BPEDecoder(suffix="</w>"),
           post_processor=lambda t: PP.RobertaProcessing(("</s>", t.token_to_id("</s>")),
                                                         ("<s>", t.token_to_id("<s>")))),
    Config("bpe-byte-fallback", "bpe-metaspace", exercise_truncation=True, covers="Llama 2 style: Prepend + Replace normalizers, no pre-tokenizer, "
           "byte_fallback + fuse_unk, decoder Sequence", normalizer=lambda: N.Sequence([N.Prepend("▁"),
                                                                                    N.Replace(" ", "▁")]),
           post_processor=lambda t: PP.TemplateProcessing(single="<s> $A", pair="<s> $A <s>:1 $B:1",
                                                          special_tokens=_ids(t, "<s>")),
           decoder=lambda: D.Sequence([D.Replace("▁", " "), D.ByteFallback(), D.Fuse(), D.Strip(" ", 1, 0)]),
           edit_model=_seq(byte_tokens_bpe, set_model(fuse_unk=True))),
    Config("bpe-metaspace-always", "bpe-metaspace", "BPE with Metaspace(always, split), ignore_merges, "
           "Strip + Replace(regex) normalizers",
           normalizer=lambda: N.Sequence([N.Strip(left=True, right=True), N.Replace(Regex(r"\s+"), " ")]),
           pre_tokenizer=lambda: P.Metaspace(prepend_scheme="always", split=True),
           decoder=lambda: D.Metaspace(prepend_scheme="always"), edit_model=set_model(ignore_merges=True)),
    # ---- byte-level BPE
    Config("bbpe-gpt2", "byte-level", exercise_truncation=True, covers="ByteLevel(add_prefix_space false, regex), ByteLevel processor trimming "
           "offsets", pre_tokenizer=lambda: P.ByteLevel(add_prefix_space=False, use_regex=True),
           post_processor=lambda t: PP.ByteLevel(trim_offsets=True), decoder=lambda: D.ByteLevel(),
           added=lambda: [AddedToken("<|endoftext|>", special=True)]),
    Config("bbpe-roberta", "byte-level", exercise_truncation=True, covers="ByteLevel(add_prefix_space), RobertaProcessing, <mask> lstrip, "
           "file truncation from the left", pre_tokenizer=lambda: P.ByteLevel(add_prefix_space=True),
           post_processor=lambda t: PP.RobertaProcessing(("</s>", t.token_to_id("</s>")),
                                                         ("<s>", t.token_to_id("<s>")),
                                                         trim_offsets=True, add_prefix_space=True),
           decoder=lambda: D.ByteLevel(), added=lambda: [AddedToken(MASK_BPE, special=True, lstrip=True)],
           truncation=dict(max_length=48, strategy="longest_first", direction="left")),
    Config("bbpe-roberta-untrimmed", "byte-level", exercise_truncation=True, covers="RobertaProcessing without offset trimming, fixed padding "
           "and truncation (sentence-transformers style), added tokens with each flag",
           pre_tokenizer=lambda: P.ByteLevel(add_prefix_space=True),
           post_processor=lambda t: PP.RobertaProcessing(("</s>", t.token_to_id("</s>")),
                                                         ("<s>", t.token_to_id("<s>")),
                                                         trim_offsets=False, add_prefix_space=True),
           added=lambda: all_flag_tokens(MASK_BPE),
           padding=dict(length=64, pad_id=3, pad_token="<pad>"), truncation=dict(max_length=64)),
    Config("bbpe-no-regex", "byte-level", exercise_truncation=True, covers="ByteLevel(use_regex false, add_prefix_space), ByteLevel processor "
           "keeping offsets", pre_tokenizer=lambda: P.ByteLevel(add_prefix_space=True, use_regex=False),
           post_processor=lambda t: PP.ByteLevel(trim_offsets=False), decoder=lambda: D.ByteLevel()),
    Config("bbpe-llama3", "byte-level", exercise_truncation=True, covers="Llama 3 style: Split(regex, isolated) + ByteLevel(no regex), "
           "ignore_merges, Sequence[ByteLevel, TemplateProcessing] processor",
           pre_tokenizer=lambda: P.Sequence([P.Split(Regex(LLAMA3_PATTERN), "isolated"),
                                             P.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=False)]),
           post_processor=lambda t: PP.Sequence([PP.ByteLevel(trim_offsets=False), PP.TemplateProcessing(
               single="<s> $A", pair="<s> $A <s>:1 $B:1", special_tokens=_ids(t, "<s>"))]),
           decoder=lambda: D.ByteLevel(), edit_model=set_model(ignore_merges=True)),
    Config("bbpe-normalizer", "byte-level", exercise_truncation=True, covers="ByteLevel normalizer + Split on 'Ġ' (merged_with_next), "
           "Sequence[ByteLevel trim, Roberta] processors",
           normalizer=lambda: N.ByteLevel(), pre_tokenizer=lambda: P.Split("Ġ", "merged_with_next"),
           post_processor=lambda t: PP.Sequence([
               PP.ByteLevel(trim_offsets=True),
               PP.RobertaProcessing(("</s>", t.token_to_id("</s>")), ("<s>", t.token_to_id("<s>")))])),
    # ---- Unigram
    Config("uni-metaspace-first", "unigram", exercise_truncation=True, covers="Metaspace(prepend first, split), T5-like template",
           normalizer=lambda: N.NFKC(), pre_tokenizer=lambda: P.Metaspace(prepend_scheme="first", split=True),
           decoder=lambda: D.Metaspace(prepend_scheme="first"),
           post_processor=lambda t: PP.TemplateProcessing(single="$A </s>", pair="$A </s> $B:1 </s>:1",
                                                          special_tokens=_ids(t, "</s>"))),
    Config("uni-metaspace-always-nosplit", "unigram", "Metaspace(prepend always, no split), no normalizer",
           pre_tokenizer=lambda: P.Metaspace(prepend_scheme="always", split=False),
           decoder=lambda: D.Metaspace(prepend_scheme="always", split=False)),
    Config("uni-metaspace-never", "unigram", "Metaspace(prepend never, split), Nmt + NFKC",
           normalizer=lambda: N.Sequence([N.Nmt(), N.NFKC()]),
           pre_tokenizer=lambda: P.Metaspace(prepend_scheme="never", split=True)),
    Config("uni-whitespace-metaspace", "unigram", exercise_truncation=True, covers="WhitespaceSplit + Metaspace (T5 style), pair template "
           "with a two-id special token",
           normalizer=lambda: N.NFKC(),
           pre_tokenizer=lambda: P.Sequence([P.WhitespaceSplit(), P.Metaspace()]),
           post_processor=lambda t: PP.TemplateProcessing(
               single="$A </s>", pair="<s>:0 $A </s> <s>:1 $B:1 </s>:1",
               special_tokens=[{"id": "<s>", "ids": [t.token_to_id("<s>"), t.token_to_id("<pad>")],
                                "tokens": ["<s>", "<pad>"]}, ("</s>", t.token_to_id("</s>"))])),
    Config("uni-byte-fallback", "unigram", exercise_truncation=True, covers="Unigram byte_fallback, NFKC + Replace(regex), added tokens with "
           "each flag", normalizer=lambda: N.Sequence([N.NFKC(), N.Replace(Regex(" {2,}"), " ")]),
           pre_tokenizer=lambda: P.Metaspace(), decoder=lambda: D.Sequence([D.Metaspace(), D.ByteFallback()]),
           added=lambda: all_flag_tokens("<mask>"), edit_model=byte_tokens_unigram),
    Config("uni-normalizers", "unigram", "no pre-tokenizer; Strip, NFKC, Replace(' ', '▁'), Prepend('▁')",
           normalizer=lambda: N.Sequence([N.Strip(), N.NFKC(), N.Replace(" ", "▁"), N.Prepend("▁")]),
           decoder=lambda: D.Metaspace()),
    Config("uni-nfd-lower-strip-left", "unigram", "NFD, StripAccents, Lowercase, Strip(left only), "
           "Replace(string) normalizers, Metaspace",
           normalizer=lambda: N.Sequence([N.NFD(), N.StripAccents(), N.Lowercase(), N.Strip(left=True, right=False),
                                          N.Replace("``", '"'), N.Replace("''", '"')]),
           pre_tokenizer=lambda: P.Metaspace(prepend_scheme="always")),
    # ---- Split pre-tokenizer
    Config("split-behaviours", "bpe-whitespace", "Split with each behaviour, string and regex patterns",
           pre_tokenizer=lambda: P.Sequence([
               P.Split(" ", "removed"), P.Split(Regex(r"\d+"), "isolated"), P.Split("-", "merged_with_previous"),
               P.Split(Regex(r"[.,!?;:]"), "merged_with_next"), P.Split("_", "contiguous")])),
    Config("split-inverted", "bpe-whitespace", "Split with invert, each behaviour",
           pre_tokenizer=lambda: P.Sequence([
               P.Split(Regex(r"[\p{L}\p{M}\p{N}]+|[^\p{L}\p{M}\p{N}\s]+"), "removed", invert=True),
               P.Split(Regex(r"[aeiou]"), "merged_with_previous", invert=True),
               P.Split("e", "merged_with_next", invert=True), P.Split("'", "isolated", invert=True),
               P.Split(Regex(r"\p{P}"), "contiguous", invert=True)])),
    # ---- WordLevel
    Config("wordlevel", "wordlevel", exercise_truncation=True, covers="WordLevel with unk, Lowercase, Whitespace, BertProcessing",
           keep_recipe_pipeline=True,
           post_processor=lambda t: PP.BertProcessing(("[SEP]", t.token_to_id("[SEP]")),
                                                      ("[CLS]", t.token_to_id("[CLS]")))),
]


def config_names() -> list[str]:
    return [c.name for c in CONFIGS]


def stamp() -> str:
    """Changes whenever the output may change."""
    h = hashlib.sha256()
    for path in (Path(__file__), Path(build_corpus.__file__)):
        h.update(path.read_bytes())
    h.update(tokenizers.__version__.encode())
    return h.hexdigest()


def build(config: Config, base_json: str) -> str:
    data = json.loads(base_json)
    if config.edit_model:
        config.edit_model(data["model"])
    tok = Tokenizer.from_str(json.dumps(data))
    if config.edit_model and json.loads(tok.to_str())["model"] != data["model"]:
        raise AssertionError(f"{config.name}: tokenizers does not keep the edited model")
    if not config.keep_recipe_pipeline:
        tok.normalizer = config.normalizer()
        tok.pre_tokenizer = config.pre_tokenizer()
    post = config.post_processor(tok)
    if post is not None:
        tok.post_processor = post
    dec = config.decoder()
    if dec is not None:
        tok.decoder = dec
    added = config.added()
    if added:
        tok.add_tokens([t for t in added if not t.special])
        tok.add_special_tokens([t for t in added if t.special])
    if config.padding is not None:
        tok.enable_padding(**config.padding)
    if config.truncation is not None:
        tok.enable_truncation(**config.truncation)
    data = json.loads(tok.to_str())
    # Loading again proves the edited file valid; writing tokenizers' own
    # serialization proves every edit is one it understands.
    final = Tokenizer.from_str(json.dumps(data, ensure_ascii=False))
    text = final.to_str(pretty=True)
    check = json.loads(text)
    for key in ("normalizer", "pre_tokenizer", "post_processor", "padding", "truncation"):
        if check.get(key) != data.get(key):
            raise AssertionError(f"{config.name}: tokenizers does not keep the edited {key}")
    final.encode("smoke test", "pair")
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="output folder (one subfolder per configuration)")
    ap.add_argument("--only", nargs="*", help="configuration names (default: all)")
    ap.add_argument("--list", action="store_true", help="print the configurations and what each covers")
    args = ap.parse_args(argv)
    if args.list:
        for c in CONFIGS:
            print(f"{c.name}: {c.covers}")
        return 0
    if not args.out:
        ap.error("--out is required")
    chosen = [c for c in CONFIGS if not args.only or c.name in args.only]
    unknown = set(args.only or []) - {c.name for c in CONFIGS}
    if unknown:
        ap.error(f"unknown configuration(s): {', '.join(sorted(unknown))}")

    start = time.monotonic()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / STAMP).unlink(missing_ok=True)
    lines, unigram_lines = training_text()
    bases: dict[str, str] = {}
    for config in chosen:
        if config.recipe not in bases:
            bases[config.recipe] = train(RECIPES[config.recipe], lines, unigram_lines)
        folder = out / config.name
        folder.mkdir(exist_ok=True)
        (folder / "tokenizer.json").write_text(build(config, bases[config.recipe]), encoding="utf-8")
    if not args.only:
        (out / STAMP).write_text(stamp() + "\n")
    print(f"{len(chosen)} tokenizers ({len(bases)} trained) -> {out} in {time.monotonic() - start:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
