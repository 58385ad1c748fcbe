#!/usr/bin/env python3
"""sentence-transformers on the GPU, for bench/run_gpu.sh: the architecture of LIKE (its config.json and
tokenizer) with random weights, mean pooling and normalization as all-MiniLM-L6-v2, encoding the sentences file at
one batch size for at least --min-seconds. Prints one JSON line: sentences/s and the device.

    python3 bench/st_gpu.py --like models/all-MiniLM-L6-v2 --sentences tests/data/sentences.txt [--batch-size 32]
"""
import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--like", type=Path, required=True)
    ap.add_argument("--sentences", type=Path, required=True)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--min-seconds", type=float, default=2.0)
    ap.add_argument("--device", default="cuda")
    args = ap.parse_args()
    import torch
    from sentence_transformers import SentenceTransformer, models
    from transformers import AutoConfig, AutoModel

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        raise SystemExit("torch sees no CUDA device")
    texts = [t for t in args.sentences.read_text(encoding="utf-8").split("\n") if t.strip()]
    with tempfile.TemporaryDirectory() as work:
        hf = Path(work) / "hf"
        torch.manual_seed(0)
        AutoModel.from_config(AutoConfig.from_pretrained(args.like)).save_pretrained(hf)
        for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"):
            if (args.like / name).is_file():
                shutil.copy2(args.like / name, hf / name)
        word = models.Transformer(str(hf), max_seq_length=256)
        model = SentenceTransformer(modules=[word, models.Pooling(word.get_word_embedding_dimension(), "mean"),
                                             models.Normalize()], device=args.device)
        model.encode(texts[:64], batch_size=args.batch_size)  # warm-up
        done, start = 0, time.perf_counter()
        while time.perf_counter() - start < args.min_seconds:
            model.encode(texts, batch_size=args.batch_size)
            done += len(texts)
        if args.device.startswith("cuda"):
            torch.cuda.synchronize()
        rate = done / (time.perf_counter() - start)
    print(json.dumps({"sentences_per_second": rate, "batch_size": args.batch_size, "device": args.device,
                      "gpu": torch.cuda.get_device_name() if args.device.startswith("cuda") else None,
                      "torch": torch.__version__}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
