#!/usr/bin/env python3
"""The BGE-M3 fixture: a model in BGE-M3's layout with random weights, exported
by `sieve-export export` (task bge-m3), and beside it reference.json, its three
outputs computed from the definitions FlagEmbedding's BGEM3 model uses.

No registry package carries BGE-M3's weights, so this draws a model of its
shape, small: an XLM-RoBERTa encoder (2 layers, hidden 32) with an
XLM-RoBERTa-style tokenizer (<s> text </s>, <pad>, <unk>, <mask>; byte-level
BPE trained here on a few sentences), the sentence-transformers files BGE-M3
publishes (CLS pooling, Normalize) and FlagEmbedding's two heads as PyTorch
state dicts: colbert_linear.pt (32 -> 24 here; BGE-M3's is 1024 -> 1024) and
sparse_linear.pt (32 -> 1).

    .venv-export/bin/python tools/make_bge_m3_fixture.py --out build/fixtures [--cache DIR]

reference.json holds, per text, from PyTorch's token states (transformers'
XLMRobertaModel, the text alone, cut to max_seq_length):

    dense    the first token's state, L2-normalized
    sparse   relu(sparse_linear(state)) per token; per token id its largest
             weight, the <s>, </s>, <pad> and <unk> ids and weights <= 0 left out
    colbert  colbert_linear(state) of every token but the first, each row L2-normalized

Writes OUT/bge-m3-tiny; made once per key (this script, the export tool's
sources, the pinned versions) in CACHE/bge-m3-tiny/KEY and copied on later runs.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cached_fixture  # noqa: E402

NAME = "bge-m3-tiny"
SEED = 3
MAX_SEQ_LENGTH = 40
SOURCES = ("tools/make_bge_m3_fixture.py",)
TRAINING = [
    "BGE-M3 gives dense, sparse and multi-vector embeddings from one model.",
    "Search systems combine a dense vector with learned sparse weights.",
    "The quick brown fox jumps over the lazy dog, again and again.",
    "Zürich, Genève and Lausanne are cities in Switzerland; café prices differ.",
    "Late interaction scores every query token against every document token.",
]
TEXTS = [
    "what is BGE-M3?",
    "dense dense dense sparse sparse: repeated words keep their largest weight",
    "Zürich café prices",
    "",
    "A long text that is cut: " + " ".join(f"word{i}" for i in range(60)),
    "<unk> and <s> written as text",
]


def tokenizer(folder: Path):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=320, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(TRAINING, trainer)
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", tok.token_to_id("<s>")), ("</s>", tok.token_to_id("</s>"))])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", sep_token="</s>",
                                   cls_token="<s>", unk_token="<unk>", pad_token="<pad>", mask_token="<mask>",
                                   model_max_length=512)
    fast.save_pretrained(folder)
    return fast


def build(folder: Path):
    import torch
    from transformers import XLMRobertaConfig, XLMRobertaModel

    torch.manual_seed(SEED)
    tok = tokenizer(folder)
    config = XLMRobertaConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                              intermediate_size=64, max_position_embeddings=514, pad_token_id=tok.pad_token_id,
                              bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, initializer_range=0.2)
    model = XLMRobertaModel(config, add_pooling_layer=False).eval()
    model.save_pretrained(folder)
    colbert, sparse = torch.nn.Linear(32, 24), torch.nn.Linear(32, 1)
    torch.save(colbert.state_dict(), folder / "colbert_linear.pt")
    torch.save(sparse.state_dict(), folder / "sparse_linear.pt")
    (folder / "1_Pooling").mkdir()
    files = {
        "modules.json": [
            {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
            {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}],
        "sentence_bert_config.json": {"max_seq_length": MAX_SEQ_LENGTH, "do_lower_case": False},
        "1_Pooling/config.json": {"word_embedding_dimension": 32, "pooling_mode_cls_token": True,
                                  "pooling_mode_mean_tokens": False, "pooling_mode_max_tokens": False,
                                  "pooling_mode_mean_sqrt_len_tokens": False},
        "config_sentence_transformers.json": {"similarity_fn_name": "cosine"},
    }
    (folder / "2_Normalize").mkdir()
    for name, doc in files.items():
        (folder / name).write_text(json.dumps(doc, indent=2))
    return model, colbert, sparse, tok


def reference(model, colbert, sparse, tok) -> dict:
    import torch

    unused = {tok.convert_tokens_to_ids(tok.special_tokens_map[k]) for k in
              ("cls_token", "eos_token", "pad_token", "unk_token")}
    out = []
    for text in TEXTS:
        batch = tok([text], truncation=True, max_length=MAX_SEQ_LENGTH, return_tensors="pt")
        with torch.no_grad():
            states = model(**batch).last_hidden_state[0]
            weights = torch.relu(sparse(states)).squeeze(-1).numpy().astype(np.float64)
            vectors = colbert(states[1:]).numpy().astype(np.float64)
        states = states.numpy().astype(np.float64)
        ids = batch["input_ids"][0].tolist()
        lexical: dict[int, float] = {}
        for idx, w in zip(ids, weights):
            if idx not in unused and w > 0 and w > lexical.get(idx, 0.0):
                lexical[idx] = float(w)
        dense = states[0] / np.linalg.norm(states[0])
        vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        out.append({"text": text, "ids": ids, "dense": dense.tolist(),
                    "sparse": [[i, lexical[i]] for i in sorted(lexical)], "colbert": vectors.tolist()})
    return {"texts": out, "max_seq_length": MAX_SEQ_LENGTH}


def build_fixture(tmp: Path) -> None:
    source = tmp / "source"
    source.mkdir()
    ref = reference(*build(source))
    cached_fixture.sieve_export("make_bge_m3_fixture", "export", str(source), "--out", str(tmp / "model"))
    (tmp / "model" / "reference.json").write_text(json.dumps(ref))


def main(argv: list[str] | None = None) -> int:
    args = cached_fixture.arguments(__doc__, NAME).parse_args(argv)
    cache = (args.cache or cached_fixture.default_cache()) / NAME
    made = cached_fixture.made_once(cache, cached_fixture.key("bge-m3-tiny 1", SOURCES), build_fixture)
    return cached_fixture.publish(made, args.out, NAME)


if __name__ == "__main__":
    sys.exit(main())
