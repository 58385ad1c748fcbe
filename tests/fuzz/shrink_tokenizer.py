#!/usr/bin/env python3
"""Cuts real tokenizer.json files down to small fuzz seeds.

Keeps every component and setting of the file but only the first tokens of
the vocabulary (and the tokens the file names: unknown, added and special
tokens), renumbered contiguously, with the BPE merges among them. The seeds
stay valid for Hugging Face, while being small enough for libFuzzer to
mutate quickly. Standard library only: runs before any virtualenv exists.
"""

import argparse
import json
import sys
from pathlib import Path


def named_tokens(doc):
    """Token strings the file refers to outside the model's vocabulary."""
    names = {t.get("content") for t in doc.get("added_tokens") or []}
    model = doc.get("model") or {}
    names.add(model.get("unk_token"))
    padding = doc.get("padding") or {}
    names.add(padding.get("pad_token"))

    def visit(processor):
        if not isinstance(processor, dict):
            return
        for key in ("sep", "cls"):
            if isinstance(processor.get(key), list) and processor[key]:
                names.add(processor[key][0])
        for token in (processor.get("special_tokens") or {}).values():
            names.update(token.get("tokens") or [])
        for inner in processor.get("processors") or []:
            visit(inner)

    visit(doc.get("post_processor"))
    names.discard(None)
    return names


def remap_processor(processor, new_id):
    if not isinstance(processor, dict):
        return
    for key in ("sep", "cls"):
        pair = processor.get(key)
        if isinstance(pair, list) and len(pair) == 2 and pair[1] in new_id:
            pair[1] = new_id[pair[1]]
    for token in (processor.get("special_tokens") or {}).values():
        token["ids"] = [new_id.get(i, i) for i in token.get("ids") or []]
    for inner in processor.get("processors") or []:
        remap_processor(inner, new_id)


def shrink(doc, keep):
    model = doc["model"]
    vocab = model.get("vocab")
    names = named_tokens(doc)
    if isinstance(vocab, dict):
        # Single characters up to U+024F include the byte-level alphabet
        # (GPT-2, RoBERTa), without which most text has no tokens at all.
        kept = {
            tok: i for tok, i in vocab.items() if i < keep or tok in names or (len(tok) == 1 and ord(tok) < 0x250)
        }
        # Added tokens outside the vocabulary keep their place after it.
        extra = {t["content"]: t["id"] for t in doc.get("added_tokens") or [] if t["content"] not in vocab}
        old_ids = sorted(set(kept.values()) | set(extra.values()))
        new_id = {old: new for new, old in enumerate(old_ids)}
        model["vocab"] = {tok: new_id[i] for tok, i in sorted(kept.items(), key=lambda kv: kv[1])}
        if "merges" in model:
            prefix = model.get("continuing_subword_prefix") or ""
            merges = []
            for merge in model["merges"]:
                left, right = merge.split(" ", 1) if isinstance(merge, str) else merge
                joined = left + (right[len(prefix):] if prefix and right.startswith(prefix) else right)
                if left in kept and right in kept and joined in kept:
                    merges.append(merge)
            model["merges"] = merges
    elif isinstance(vocab, list):  # Unigram: [piece, score] pairs, ids by position
        unk_id = model.get("unk_id")
        old_ids = [i for i, (piece, _) in enumerate(vocab) if i < keep or i == unk_id or piece in names]
        new_id = {old: new for new, old in enumerate(old_ids)}
        extra_ids = sorted({t["id"] for t in doc.get("added_tokens") or [] if t["id"] not in new_id})
        for old in extra_ids:
            new_id[old] = len(new_id)
        model["vocab"] = [vocab[i] for i in old_ids]
        if unk_id is not None:
            model["unk_id"] = new_id[unk_id]
    else:
        return doc
    for token in doc.get("added_tokens") or []:
        token["id"] = new_id.get(token["id"], token["id"])
    padding = doc.get("padding")
    if isinstance(padding, dict) and padding.get("pad_id") in new_id:
        padding["pad_id"] = new_id[padding["pad_id"]]
    remap_processor(doc.get("post_processor"), new_id)
    return doc


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", required=True, type=Path, help="folder for the <model>.json seeds")
    parser.add_argument("--keep", type=int, default=400, help="vocabulary entries to keep")
    parser.add_argument("--max-bytes", type=int, default=16384, help="skip seeds larger than this")
    parser.add_argument("files", nargs="+", type=Path, help="tokenizer.json files")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for path in args.files:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            small = shrink(doc, args.keep)
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            print(f"shrink_tokenizer: skipping {path}: {e}", file=sys.stderr)
            continue
        name = path.parent.name if path.name == "tokenizer.json" else path.stem
        text = json.dumps(small, ensure_ascii=False)
        if len(text.encode("utf-8")) > args.max_bytes:
            # libFuzzer would cut it at its -max_len, leaving broken JSON
            # (t5's precompiled character map alone is ~300 KB).
            print(f"shrink_tokenizer: skipping {path}: still {len(text)} bytes", file=sys.stderr)
            continue
        (args.out / f"{name}.json").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
