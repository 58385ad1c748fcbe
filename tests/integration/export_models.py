"""Helper for test_export_tool.py, run with .venv-export's Python (torch,
transformers, sentence-transformers): makes tiny random PyTorch models and
the sentence-transformers / CrossEncoder references Sieve is compared with.

    python export_models.py --out DIR --minilm PACKAGE_MODEL_DIR --texts FILE --pairs FILE

Writes under DIR:
  tiny-st/        a sentence-transformers folder (BertModel, hidden 32, 2 layers,
                  mean pooling, Normalize) saved by SentenceTransformer.save
  tiny-ce/        a BertForSequenceClassification (one label) with tokenizer files
  references.npz  tiny_st: SentenceTransformer.encode(texts); minilm:
                  the same for all-MiniLM-L6-v2; tiny_ce_scores: CrossEncoder.predict(pairs)
                  (sigmoid); tiny_ce_logits: the torch logits
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch
from sentence_transformers import CrossEncoder, SentenceTransformer, models
from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification, BertModel


def tiny_config(vocab: int, **extra) -> BertConfig:
    return BertConfig(vocab_size=vocab, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                      intermediate_size=64, max_position_embeddings=512, initializer_range=0.2, **extra)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--minilm", required=True, type=Path)
    ap.add_argument("--texts", required=True, type=Path)
    ap.add_argument("--pairs", required=True, type=Path)
    args = ap.parse_args()
    torch.manual_seed(7)
    texts = [t for t in args.texts.read_text(encoding="utf-8").split("\n") if t.strip()]
    pairs = [tuple(p) for p in json.loads(args.pairs.read_text(encoding="utf-8"))]
    tokenizer = AutoTokenizer.from_pretrained(str(args.minilm))
    vocab = tokenizer.vocab_size

    # Embedder: Transformer + mean Pooling + Normalize, saved as sentence-transformers saves it.
    base = args.out / "tiny-bert-base"
    BertModel(tiny_config(vocab)).save_pretrained(base)
    tokenizer.save_pretrained(base)
    transformer = models.Transformer(str(base), max_seq_length=128)
    pooling = models.Pooling(transformer.get_word_embedding_dimension(), pooling_mode="mean")
    st = SentenceTransformer(modules=[transformer, pooling, models.Normalize()], device="cpu")
    st.save(str(args.out / "tiny-st"))
    st = SentenceTransformer(str(args.out / "tiny-st"), device="cpu")

    # Cross-encoder: one label.
    ce_dir = args.out / "tiny-ce"
    BertForSequenceClassification(tiny_config(vocab, num_labels=1)).save_pretrained(ce_dir)
    tokenizer.save_pretrained(ce_dir)
    ce = CrossEncoder(str(ce_dir), device="cpu")
    scores = ce.predict(pairs, batch_size=8)
    model = BertForSequenceClassification.from_pretrained(ce_dir).eval()
    enc = tokenizer([q for q, _ in pairs], [d for _, d in pairs], padding=True, truncation=True, return_tensors="pt")
    with torch.no_grad():
        logits = model(**enc).logits.numpy()

    minilm = SentenceTransformer(str(args.minilm), device="cpu")
    np.savez(args.out / "references.npz",
             tiny_st=st.encode(texts, batch_size=16, convert_to_numpy=True),
             minilm=minilm.encode(texts, batch_size=16, convert_to_numpy=True),
             tiny_ce_scores=np.asarray(scores, dtype=np.float64),
             tiny_ce_logits=logits)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
