"""sieve-export: make and compare ONNX model folders for Sieve.

    sieve-export export MODEL --out DIR [--task auto|feature-extraction|text-classification|llm-reranker|sparse|bge-m3]
                        [--opset N] [--instruction TEXT]
    sieve-export optimize DIR --out DIR [--level O1|O2|O3|O4] [--json]
    sieve-export fp16 DIR --out DIR
    sieve-export quantize DIR --out DIR --mode dynamic [--config avx2|avx512|avx512_vnni|arm64] [--per-channel]
    sieve-export quantize DIR --out DIR --mode static --calibration TEXTS.txt [--calibration-size N]
                          [--method minmax|entropy|percentile]
    sieve-export report --reference FP32_DIR VARIANT_DIR... --corpus FILE [--bench] [--json OUT] [--markdown]
    sieve-export convert-weights DIR

Every command that writes a folder writes a complete Sieve model folder: the
new model.onnx with the tokenizer, configuration and sentence-transformers
files of its input, built in a temporary sibling and renamed into place.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .model_folder import ToolError


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="sieve-export", description="Make and compare ONNX model folders for Sieve.",
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("export", help="PyTorch checkpoint -> ONNX folder (optimum), checked against PyTorch")
    p.add_argument("model", help="a local model folder (or a Hugging Face Hub id, which needs network)")
    p.add_argument("--out", required=True, type=Path, help="output model folder")
    p.add_argument("--task", default="auto",
                   choices=["auto", "feature-extraction", "text-classification", "llm-reranker", "sparse", "bge-m3"],
                   help="feature-extraction: an embedder; text-classification: a cross-encoder or classifier "
                        "(*ForSequenceClassification); llm-reranker: a causal LM scoring yes/no under the "
                        "Qwen3-Reranker prompt (*ForCausalLM); sparse: a SPLADE sparse encoder (a "
                        "SparseEncoder folder, or a *ForMaskedLM), output sparse_embedding [batch, vocab]; bge-m3: "
                        "BGE-M3's dense, sparse and ColBERT outputs from one graph (a folder with colbert_linear.pt "
                        "and sparse_linear.pt); "
                        "auto: from the folder (a *ForMaskedLM without modules.json is an embedder)")
    p.add_argument("--instruction", default=None,
                   help="llm-reranker: the task instruction of its prompt (default: the Qwen3-Reranker card's, "
                        "'Given a web search query, retrieve relevant passages that answer the query')")
    p.add_argument("--opset", type=int, default=None, help="ONNX opset (default: optimum's for the model)")
    p.add_argument("--atol", type=float, default=1e-4, help="tolerance of the check against PyTorch")
    p.add_argument("--no-check", action="store_true", help="skip the comparison with PyTorch")
    p.add_argument("--no-fuse", action="store_true",
                   help="keep optimum's graph as it is (by default a BERT-like encoder's attention and GELU are "
                        "fused into ONNX Runtime's Attention and BiasGelu operators, after checking the outputs)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")

    p = sub.add_parser("optimize", help="ONNX Runtime transformer optimizer (fusions) at optimum's levels")
    p.add_argument("folder", type=Path)
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--level", default="O2", choices=["O1", "O2", "O3", "O4"])
    p.add_argument("--model-type", default=None, help="optimizer model type (default: from config.json)")
    p.add_argument("--num-heads", type=int, default=None, help="default: config.json num_attention_heads")
    p.add_argument("--hidden-size", type=int, default=None, help="default: config.json hidden_size")
    p.add_argument("--allow-missing-fusions", action="store_true",
                   help="write the folder even when a BERT model lacks the level's expected fusions")
    p.add_argument("--json", action="store_true", help="print the fused operator counts as JSON")

    p = sub.add_parser("fp16", help="FP16 conversion for GPUs (inputs and outputs keep their types)")
    p.add_argument("folder", type=Path)
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--op-block-list", nargs="*", default=None, help="operators to keep in FP32")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("quantize", help="INT8 quantization (onnxruntime.quantization): dynamic or static QDQ")
    p.add_argument("folder", type=Path)
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--mode", default="dynamic", choices=["dynamic", "static"])
    p.add_argument("--config", default="avx512_vnni", choices=["avx2", "avx512", "avx512_vnni", "arm64"])
    p.add_argument("--per-channel", action="store_true", help="one scale per output channel of each weight")
    p.add_argument("--op-types", nargs="+", default=None,
                   help="operators to quantize (default: MatMul Attention Gather EmbedLayerNormalization "
                        "for dynamic, MatMul Gather for static)")
    p.add_argument("--calibration", type=Path, default=None, help="static: calibration texts, one per line")
    p.add_argument("--calibration-size", type=int, default=500, help="static: texts used (default 500)")
    p.add_argument("--calibration-skip", type=int, default=0, help="static: lines skipped first")
    p.add_argument("--method", default="minmax", choices=["minmax", "entropy", "percentile"])
    p.add_argument("--exclude-nodes", default=None, metavar="REGEX",
                   help="keep in float the nodes whose name matches REGEX (e.g. 'output/dense')")
    p.add_argument("--blockwise-nodes", default=None, metavar="REGEX",
                   help="dynamic: MatMuls whose node names match REGEX are quantized block-wise (8-bit MatMulNBits, "
                        "activations quantized per block): more accurate where activations have outlier channels, "
                        "e.g. 'layer\\.[0-9]+/output/dense' for BERT's FFN output projections")
    p.add_argument("--block-size", type=int, default=128, help="--blockwise-nodes: block length (default 128)")
    p.add_argument("--no-preprocess", action="store_true", help="skip quant_pre_process")
    p.add_argument("--min-cosine", type=float, default=None,
                   help="refuse a model whose vectors' mean cosine to the float model's (a cross-encoder's: the "
                        "correlation of its scores) is below this on the check texts (default 0.99)")
    p.add_argument("--check-texts", type=Path, default=None,
                   help="texts to check on, one per line (a cross-encoder's: query<TAB>document); default: a "
                        "built-in sample of prose from Python's standard library docstrings")
    p.add_argument("--check-size", type=int, default=None, help="texts checked (default 96)")
    p.add_argument("--force", action="store_true",
                   help="write the model even below --min-cosine (with a warning, recorded in the folder)")
    p.add_argument("--no-check", action="store_true", help="do not measure the model (recorded as not measured)")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("convert-weights", help="module weights in pytorch_model.bin -> model.safetensors, in place")
    p.add_argument("folder", type=Path, help="a model folder whose modules.json names Dense or LayerNorm modules")

    p = sub.add_parser("report", help="accuracy (and speed) of variants against the FP32 folder, run by Sieve")
    p.add_argument("--reference", required=True, type=Path, help="the FP32 model folder")
    p.add_argument("variants", nargs="+", type=str,
                   help="variant folders; FOLDER@PROVIDER runs one on an execution provider, e.g. "
                        "m/fp32@openvino (bf16 where the CPU has it) or m/fp32@openvino:precision=f32")
    p.add_argument("--corpus", required=True, type=Path, help="texts, one per line (e.g. tools/build_corpus.py)")
    p.add_argument("--kind", default="auto", choices=["auto", "embedder", "cross-encoder"])
    p.add_argument("--sieve", type=Path, default=None, help="the sieve binary (default: build/sieve or $SIEVE_BIN)")
    p.add_argument("--limit", type=int, default=2000, help="embedder: corpus texts compared (default 2000)")
    p.add_argument("--skip", type=int, default=0, help="corpus lines skipped first")
    p.add_argument("--queries", type=int, default=20, help="cross-encoder: queries (default 20)")
    p.add_argument("--docs-per-query", type=int, default=100, help="cross-encoder: documents per query")
    p.add_argument("--top-k", type=int, default=10)
    p.add_argument("--threads", type=int, default=0, help="intra-op threads (0: physical cores)")
    p.add_argument("--bench", action="store_true", help="also measure speed with Sieve's benchmark program")
    p.add_argument("--bench-binary", type=Path, default=None,
                   help="default: sieve_bench / sieve_rerank_bench next to the sieve binary")
    p.add_argument("--rounds", type=int, default=3, help="bench: interleaved rounds (default 3)")
    p.add_argument("--bench-texts", type=int, default=256, help="bench: embedder texts (default 256)")
    p.add_argument("--bench-batch-size", type=int, default=32)
    p.add_argument("--min-seconds", type=float, default=2.0, help="bench: measuring time per folder and round")
    p.add_argument("--min-cosine", type=float, default=None,
                   help="recommend the fastest variant (with --bench) whose mean cosine (a cross-encoder's: mean "
                        "Spearman per query) reaches this")
    p.add_argument("--min-worst-cosine", type=float, default=None,
                   help="with --min-cosine, embedders: the worst text's cosine must reach this too (e.g. 0.98)")
    p.add_argument("--sentence-transformers", type=Path, default=None, metavar="MODEL_DIR",
                   help="embedders: measure every variant against sentence-transformers' encode of this original "
                        "(PyTorch) model folder instead of the FP32 folder")
    p.add_argument("--json", dest="json_out", type=Path, default=None, help="write the full report as JSON here")
    p.add_argument("--markdown", action="store_true", help="print a Markdown table (default: a plain summary)")
    return ap


def _print_json(obj) -> None:
    print(json.dumps(obj, indent=2, ensure_ascii=False))


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "export":
            from .export import export

            result = export(args.model, args.out, task=args.task, opset=args.opset, atol=args.atol,
                            check=not args.no_check, instruction=args.instruction, fuse=not args.no_fuse)
            if args.json:
                _print_json(result)
            else:
                check = result.get("check", {})
                diffs = ", ".join(f"{k} {v:.2e}" for k, v in check.items() if k.endswith("diff"))
                mismatches = check.get("term_set_mismatches")
                print(f"{args.out}: {result['kind']} ({result['task']})" + (f"; vs PyTorch: {diffs}" if diffs else "")
                      + (f", {mismatches} term set mismatches" if mismatches is not None else ""))
        elif args.command == "optimize":
            from .optimize import format_counts, optimize

            result = optimize(args.folder, args.out, args.level, model_type=args.model_type,
                              num_heads=args.num_heads, hidden_size=args.hidden_size,
                              check=not args.allow_missing_fusions)
            _print_json(result) if args.json else print(format_counts(result))
        elif args.command == "fp16":
            from .fp16 import convert

            result = convert(args.folder, args.out, op_block_list=args.op_block_list)
            _print_json(result) if args.json else print(f"{args.out}: FP16 (keep_io_types)")
        elif args.command == "quantize":
            from .quantize import quantize

            result = quantize(args.folder, args.out, mode=args.mode, config=args.config,
                              per_channel=args.per_channel, op_types=args.op_types, calibration=args.calibration,
                              calibration_size=args.calibration_size, calibration_skip=args.calibration_skip,
                              method=args.method, pre_process=not args.no_preprocess,
                              exclude_nodes=args.exclude_nodes, blockwise_nodes=args.blockwise_nodes,
                              block_size=args.block_size, check=not args.no_check,
                              check_texts=args.check_texts, check_size=args.check_size,
                              min_cosine=args.min_cosine, force=args.force)
            if args.json:
                _print_json(result)
            else:
                print(f"{args.out}: INT8 {args.mode} ({args.config}, weights {result['weight_type']}"
                      f"{', per channel' if args.per_channel else ''}; ops {' '.join(result['op_types'])}"
                      + (f"; {len(result['blockwise_nodes'])} MatMuls block-wise, blocks of {result['block_size']}"
                         if "blockwise_nodes" in result else "") + ")"
                      + (f"; mean {result['accuracy']['metric']} {result['accuracy']['mean']:.4f} "
                         f"(min {result['accuracy']['min']:.4f}) to the float model"
                         if result.get("accuracy") else "; accuracy not measured"))
        elif args.command == "convert-weights":
            from .model_folder import convert_module_weights

            if not (args.folder / "modules.json").is_file():
                raise ToolError(f"{args.folder}: no modules.json (not a sentence-transformers folder)")
            written = convert_module_weights(args.folder)
            print(f"{args.folder}: " + (", ".join(str(w.relative_to(args.folder)) for w in written) + " written"
                                        if written else "every module's weights are in model.safetensors already"))
        elif args.command == "report":
            from .report import markdown, report

            result = report(args.reference, args.variants, args.corpus, kind=args.kind, sieve=args.sieve,
                            limit=args.limit, skip=args.skip, queries=args.queries,
                            docs_per_query=args.docs_per_query, top_k=args.top_k, bench=args.bench,
                            bench_binary=args.bench_binary, rounds=args.rounds, bench_texts=args.bench_texts,
                            bench_batch_size=args.bench_batch_size, min_seconds=args.min_seconds,
                            threads=args.threads, min_cosine=args.min_cosine,
                            min_worst_cosine=args.min_worst_cosine,
                            sentence_transformers=args.sentence_transformers)
            if args.json_out:
                args.json_out.parent.mkdir(parents=True, exist_ok=True)
                args.json_out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            if args.markdown:
                print(markdown(result, args.top_k), end="")
            else:
                _print_json({e["name"]: {**e.get("accuracy", {}), **({"error": e["error"]} if "error" in e else {}),
                                         **{k: v for k, v in e.get("speed", {}).items() if k != "rounds"}}
                             for e in result["variants"]})
                if result.get("recommendation"):
                    rec = result["recommendation"]
                    print(f"recommended at {rec['measure'].replace('_', ' ')} >= {rec['min_cosine']}: "
                          + (f"{rec['choice']} ({rec['why']})" if rec["choice"] else rec["why"]))
            if any("error" in e for e in result["variants"]):
                return 1
    except ToolError as exc:
        print(f"sieve-export: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
