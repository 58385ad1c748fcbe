#!/usr/bin/env python3
"""Create tiny BERT-shaped model folders plus reference embeddings for tests.

Why: the C++ tests need real ONNX models that load in milliseconds and cover
every folder layout and pooling mode the loader must understand, without the
90 MB MiniLM download.  The weights are random (numpy default_rng with fixed
seeds) so the folders are reproducible; each folder's reference.json holds
what the Python reference stack -- Hugging Face `tokenizers`, onnxruntime and
numpy pooling with sentence-transformers semantics -- produces for ~40 texts.

    python tools/make_fixtures.py --out DIR \
        --tokenizer ../shared/tokenizers/sentence-transformers__all-MiniLM-L6-v2/tokenizer.json

Folders written under DIR (hidden 32, 2 layers, 4 heads, intermediate 64):
  tiny-bert-tokens  last_hidden_state; modules.json: mean pooling + Normalize;
                    max_seq_length 128
  tiny-bert-cls     last_hidden_state; CLS pooling, no Normalize; max_seq_length 128
  tiny-bert-max     last_hidden_state; max pooling, no Normalize; max_seq_length 64
                    (differs from tokenizer.json's 128 on purpose, so tests can
                    tell that sentence_bert_config.json wins, as in sentence-transformers)
  tiny-bert-pooled  rank-2 sentence_embedding computed in the graph (mean
                    pooling), inputs input_ids + attention_mask only, no
                    modules.json / sentence_bert_config.json; its length limit
                    comes from tokenizer.json (128; tokenizer_config agrees)

  tiny-splade       rank-3 "logits" [batch, seq, vocab] (the token states times
                    the tied word embeddings, plus a bias); modules.json:
                    Transformer + SpladePooling (max, relu), so Sieve pools the
                    logits itself; max_seq_length 128. Cheap enough for the
                    valgrind run of the C test, where a real SPLADE is not.

reference.json: {"texts", "max_length", "normalize", "pooling", "batch_size",
"input_ids" (per text, truncated, unpadded), "pooled_embeddings" (before
normalisation), "embeddings" (final)}; floats are written with repr so they
round-trip exactly. tiny-splade's reference.json is the sparse one of
tools/make_sparse_reference.py: {"max_seq_length", "pooling_strategy",
"activation_function", "vocab_size", "texts": [{"text", "input_ids",
"indices", "values"}]}, from onnxruntime's logits and NumPy's
max(log1p(relu(logits))) over the real tokens.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bert_onnx  # noqa: E402  (sibling module, path set just above)

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TOKENIZER = ROOT.parent / "shared/tokenizers/sentence-transformers__all-MiniLM-L6-v2/tokenizer.json"

HIDDEN, LAYERS, HEADS, INTERMEDIATE, MAX_POSITION = 32, 2, 4, 64, 512
REFERENCE_BATCH = 8  # small so that the texts are spread over several padded batches

SPECIAL_TOKENS_MAP = {"unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]",
                      "cls_token": "[CLS]", "mask_token": "[MASK]"}

# name -> (seed, pooling, normalize, max_seq_length, graph pooled?)
FIXTURES = {
    "tiny-bert-tokens": (1001, "mean", True, 128, False),
    "tiny-bert-cls": (1002, "cls", False, 128, False),
    "tiny-bert-max": (1003, "max", False, 64, False),
    "tiny-bert-pooled": (1004, "none", False, 128, True),
}

_LONG = " ".join(["The long text keeps going well past the maximum sequence length"] * 30)

TEXTS = [
    "",
    "Hello, world!",
    "hello world",
    "HELLO WORLD",
    "The quick brown fox jumps over the lazy dog.",
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "Sentence embeddings map text to vectors.",
    "a",
    "   ",
    "\t tabs\tand\u00a0no-break\u3000spaces \u200b zero width",
    "Café crème brûlée, déjà vu, naïve façade.",
    "ÉCOLE Élève Ça",
    "Straße Größe Fußgänger",
    "e\u0301 versus \u00e9",
    "İstanbul ǅ ß ﬁ",
    "１２３ ＡＢＣ full-width",
    "你好，世界！今天天气很好。",
    "東京は日本の首都です。カタカナ。",
    "안녕하세요 세계",
    "Съешь же ещё этих мягких французских булок.",
    "Γειά σου Κόσμε",
    "مرحبا بالعالم",
    "שלום עולם",
    "नमस्ते दुनिया",
    "สวัสดีชาวโลก",
    "I ❤️ NY 🗽",
    "👍🏽 👨‍👩‍👧‍👦 🇯🇵 🏳️‍🌈",
    "😀😃😄😁😆",
    "[CLS] hello [SEP]",
    "[MASK]",
    "hello[SEP]world[PAD]",
    "don't won't U.S.A.",
    "Call +1 (555) 123-4567 or mail jane.doe@example.com",
    "https://example.com/path?q=1&lang=en#top",
    "int main() { return 0; }",
    "3.14159 2,718 1e-9 0xFF",
    "wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww",
    "control\x07chars\x1b and \ufffd replacement",
    _LONG,
]


def random_weights(seed: int, vocab: int) -> dict[str, np.ndarray]:
    """BertModel-named weights scaled so activations stay O(1).

    HF's own init (std 0.02) would make every text embed to nearly the same
    vector, which makes comparisons weak; fan-in scaling keeps texts apart,
    and non-trivial LayerNorm gamma/beta exercise those inputs too.
    """
    rng = np.random.default_rng(seed)

    def normal(shape, std):
        return rng.normal(0.0, std, size=shape).astype(np.float32)

    def ln(prefix):
        w[f"{prefix}.weight"] = (1.0 + normal((HIDDEN,), 0.1)).astype(np.float32)
        w[f"{prefix}.bias"] = normal((HIDDEN,), 0.1)

    def linear(prefix, fan_in, fan_out):
        w[f"{prefix}.weight"] = normal((fan_out, fan_in), 1.0 / np.sqrt(fan_in))
        w[f"{prefix}.bias"] = normal((fan_out,), 0.1)

    w: dict[str, np.ndarray] = {
        "embeddings.word_embeddings.weight": normal((vocab, HIDDEN), 1.0),
        "embeddings.position_embeddings.weight": normal((MAX_POSITION, HIDDEN), 0.5),
        "embeddings.token_type_embeddings.weight": normal((2, HIDDEN), 0.5),
    }
    ln("embeddings.LayerNorm")
    for i in range(LAYERS):
        p = f"encoder.layer.{i}"
        for part in ("query", "key", "value"):
            linear(f"{p}.attention.self.{part}", HIDDEN, HIDDEN)
        linear(f"{p}.attention.output.dense", HIDDEN, HIDDEN)
        ln(f"{p}.attention.output.LayerNorm")
        linear(f"{p}.intermediate.dense", HIDDEN, INTERMEDIATE)
        linear(f"{p}.output.dense", INTERMEDIATE, HIDDEN)
        ln(f"{p}.output.LayerNorm")
    return w


def bert_config(vocab: int) -> dict:
    return {
        "architectures": ["BertModel"], "model_type": "bert",
        "hidden_size": HIDDEN, "num_hidden_layers": LAYERS, "num_attention_heads": HEADS,
        "intermediate_size": INTERMEDIATE, "hidden_act": "gelu",
        "max_position_embeddings": MAX_POSITION, "type_vocab_size": 2, "vocab_size": vocab,
        "layer_norm_eps": 1e-12, "pad_token_id": 0, "position_embedding_type": "absolute",
        "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1, "initializer_range": 0.02,
    }


def pooling_config(mode: str) -> dict:
    return {
        "word_embedding_dimension": HIDDEN,
        "pooling_mode_cls_token": mode == "cls",
        "pooling_mode_mean_tokens": mode == "mean",
        "pooling_mode_max_tokens": mode == "max",
        "pooling_mode_mean_sqrt_len_tokens": False,
        "pooling_mode_weightedmean_tokens": False,
        "pooling_mode_lasttoken": False,
        "include_prompt": True,
    }


def modules_config(normalize: bool) -> list[dict]:
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    ]
    if normalize:
        modules.append({"idx": 2, "name": "2", "path": "2_Normalize",
                        "type": "sentence_transformers.models.Normalize"})
    return modules


def pool(out: np.ndarray, mask: np.ndarray, mode: str) -> np.ndarray:
    """sentence-transformers Pooling semantics (models/Pooling.py)."""
    if mode == "none":
        return out
    m = mask.astype(np.float32)[:, :, None]
    if mode == "cls":
        return out[:, 0]
    if mode == "mean":
        return (out * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
    if mode == "max":
        return np.where(m > 0, out, np.float32(-1e9)).max(axis=1)
    raise ValueError(mode)


def l2_normalize(x: np.ndarray) -> np.ndarray:
    # torch.nn.functional.normalize: x / max(||x||, eps), eps = 1e-12.
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)


def reference(model_path: Path, tokenizer_path: Path, pooling: str, normalize: bool,
              max_length: int) -> dict:
    tok = Tokenizer.from_file(str(tokenizer_path))
    # What sentence-transformers does: pad each batch to its longest member,
    # truncate to max_seq_length, whatever tokenizer.json says.
    tok.no_padding()
    tok.enable_truncation(max_length=max_length)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1  # reproducible reductions
    sess = ort.InferenceSession(str(model_path), opts, providers=["CPUExecutionProvider"])
    input_names = {i.name for i in sess.get_inputs()}

    encodings = tok.encode_batch(TEXTS)
    pooled_all = []
    for start in range(0, len(encodings), REFERENCE_BATCH):
        batch = encodings[start:start + REFERENCE_BATCH]
        longest = max(len(e.ids) for e in batch)
        feeds = {k: np.zeros((len(batch), longest), dtype=np.int64)
                 for k in ("input_ids", "attention_mask", "token_type_ids")}
        for row, e in enumerate(batch):
            feeds["input_ids"][row, :len(e.ids)] = e.ids
            feeds["attention_mask"][row, :len(e.ids)] = e.attention_mask
            feeds["token_type_ids"][row, :len(e.ids)] = e.type_ids
        out = sess.run(None, {k: v for k, v in feeds.items() if k in input_names})[0]
        pooled_all.append(pool(out, feeds["attention_mask"], pooling))
    pooled = np.concatenate(pooled_all).astype(np.float32)
    final = l2_normalize(pooled).astype(np.float32) if normalize else pooled

    def rows(a: np.ndarray) -> list[list[float]]:
        # float(np.float32) is exact, and json writes floats with repr, so
        # parsing back to double and casting to float32 recovers every value.
        return [[float(v) for v in r] for r in a]

    return {
        "texts": TEXTS,
        "max_length": max_length,
        "normalize": normalize,
        "pooling": pooling,
        "batch_size": REFERENCE_BATCH,
        "input_ids": [list(e.ids) for e in encodings],
        "pooled_embeddings": rows(pooled),
        "embeddings": rows(final),
    }


def write_json(path: Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def publish(tmp: Path, final: Path) -> None:
    """The finished temporary folder takes the final name (replacing an older one)."""
    if final.exists():
        shutil.rmtree(final)
    os.rename(tmp, final)


def make_fixture(out_dir: Path, name: str, tokenizer_path: Path) -> None:
    seed, pooling, normalize, max_len, graph_pooled = FIXTURES[name]
    vocab = Tokenizer.from_file(str(tokenizer_path)).get_vocab_size(with_added_tokens=True)
    config = bert_config(vocab)

    # Build in a temporary sibling and rename, so a half-written fixture never
    # sits under the final name.
    final = out_dir / name
    tmp = Path(tempfile.mkdtemp(prefix=f".{name}.tmp-", dir=out_dir))
    os.chmod(tmp, 0o755)  # mkdtemp makes it 0700; the finished folder should be world-readable
    try:
        model = bert_onnx.build_bert_graph(random_weights(seed, vocab), config, pooled=graph_pooled,
                                           token_type_ids=not graph_pooled, graph_name=name)
        bert_onnx.save_model(model, tmp / "model.onnx")
        shutil.copyfile(tokenizer_path, tmp / "tokenizer.json")
        write_json(tmp / "config.json", config)
        write_json(tmp / "special_tokens_map.json", SPECIAL_TOKENS_MAP)
        write_json(tmp / "tokenizer_config.json", {
            **SPECIAL_TOKENS_MAP, "do_lower_case": True, "tokenize_chinese_chars": True,
            "strip_accents": None, "tokenizer_class": "BertTokenizer",
            # The ST-style folders copy MiniLM's real-world mismatch (512 here,
            # 128 in tokenizer.json, max_seq_length elsewhere); the pooled
            # folder has nothing else to go by, so every source says 128.
            "model_max_length": max_len if graph_pooled else 512,
        })
        if not graph_pooled:
            write_json(tmp / "modules.json", modules_config(normalize))
            write_json(tmp / "sentence_bert_config.json", {"max_seq_length": max_len, "do_lower_case": False})
            write_json(tmp / "1_Pooling/config.json", pooling_config(pooling))
            if normalize:
                (tmp / "2_Normalize").mkdir()
        write_json(tmp / "reference.json", reference(tmp / "model.onnx", tmp / "tokenizer.json",
                                                     pooling, normalize, max_len))
        publish(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


SPLADE_SEED, SPLADE_MAX_LENGTH = 1005, 128


def sparse_reference(model_path: Path, tokenizer_path: Path, max_length: int) -> dict:
    """SpladePooling (max, relu) as sentence-transformers computes it:
    log1p(relu(logits)), the padding masked out, the maximum over tokens."""
    tok = Tokenizer.from_file(str(tokenizer_path))
    tok.no_padding()
    tok.enable_truncation(max_length=max_length)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(str(model_path), opts, providers=["CPUExecutionProvider"])
    texts = []
    for text, e in zip(TEXTS, tok.encode_batch(TEXTS)):
        ids = np.array([e.ids], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        logits = sess.run(["logits"], feeds)[0][0]
        weights = np.log1p(np.maximum(logits, 0.0)).max(axis=0)
        indices = np.flatnonzero(weights > 0)
        texts.append({"text": text, "input_ids": list(e.ids), "indices": [int(i) for i in indices],
                      "values": [float(v) for v in weights[indices]]})
    return {"max_seq_length": max_length, "pooling_strategy": "max", "activation_function": "relu",
            "vocab_size": int(sess.get_outputs()[0].shape[2]), "texts": texts}


def make_sparse_fixture(out_dir: Path, tokenizer_path: Path) -> None:
    name = "tiny-splade"
    vocab = Tokenizer.from_file(str(tokenizer_path)).get_vocab_size(with_added_tokens=True)
    config = {**bert_config(vocab), "architectures": ["BertForMaskedLM"]}
    weights = random_weights(SPLADE_SEED, vocab)
    # A negative bias keeps most terms at zero after the ReLU, as in a trained SPLADE.
    weights["token_logits.bias"] = np.random.default_rng(SPLADE_SEED).normal(-14.0, 1.0, vocab).astype(np.float32)
    final = out_dir / name
    tmp = Path(tempfile.mkdtemp(prefix=f".{name}.tmp-", dir=out_dir))
    os.chmod(tmp, 0o755)
    try:
        model = bert_onnx.build_bert_graph(weights, config, token_logits=True, graph_name=name)
        bert_onnx.save_model(model, tmp / "model.onnx")
        shutil.copyfile(tokenizer_path, tmp / "tokenizer.json")
        write_json(tmp / "config.json", config)
        write_json(tmp / "special_tokens_map.json", SPECIAL_TOKENS_MAP)
        write_json(tmp / "tokenizer_config.json", {**SPECIAL_TOKENS_MAP, "do_lower_case": True,
                                                   "tokenizer_class": "BertTokenizer", "model_max_length": 512})
        write_json(tmp / "modules.json", [
            {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.sparse_encoder.models.MLMTransformer"},
            {"idx": 1, "name": "1", "path": "1_SpladePooling",
             "type": "sentence_transformers.sparse_encoder.models.SpladePooling"}])
        write_json(tmp / "sentence_bert_config.json", {"max_seq_length": SPLADE_MAX_LENGTH, "do_lower_case": False})
        write_json(tmp / "1_SpladePooling/config.json", {"pooling_strategy": "max", "activation_function": "relu",
                                                         "word_embedding_dimension": vocab})
        write_json(tmp / "reference.json", sparse_reference(tmp / "model.onnx", tmp / "tokenizer.json",
                                                            SPLADE_MAX_LENGTH))
        publish(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="folder that receives the fixture folders")
    ap.add_argument("--tokenizer", default=str(DEFAULT_TOKENIZER), help="a BERT WordPiece tokenizer.json")
    args = ap.parse_args(argv)

    start = time.monotonic()
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    tokenizer_path = Path(args.tokenizer)
    if not tokenizer_path.is_file():
        raise SystemExit(f"tokenizer not found: {tokenizer_path}")
    for name in FIXTURES:
        make_fixture(out_dir, name, tokenizer_path)
    make_sparse_fixture(out_dir, tokenizer_path)
    print(f"wrote {len(FIXTURES) + 1} fixtures ({', '.join(FIXTURES)}, tiny-splade) with {len(TEXTS)} reference texts "
          f"to {out_dir} in {time.monotonic() - start:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
