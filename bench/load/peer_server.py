#!/usr/bin/env python3
"""Peer embedding server for the load benchmark: FastAPI + sentence-transformers.

Why: Sieve's server numbers mean something only beside what a Python user
would deploy for the same model on the same machine. This is that server,
made fair rather than naive: it speaks the same OpenAI-style
POST /v1/embeddings as `sieve serve`, and it batches dynamically, because a
server that runs one `encode` per request would make any batching server look
good. Requests go onto an asyncio queue; one task takes whatever is waiting
(after a short window when the queue was empty, so that concurrent arrivals
can join), runs a single `SentenceTransformer.encode` on the combined list in
one worker thread (torch parallelizes inside it), and answers each request
with its slice.

    /opt/stvenv/bin/python bench/load/peer_server.py --model PATH --name all-MiniLM-L6-v2 --port 8090

PATH is a sentence-transformers folder with PyTorch weights (model.safetensors);
Sieve's ONNX folders do not have them. GET /ready answers 200 once the model is
loaded and warmed up (the server only starts listening then). Needs fastapi,
uvicorn and sentence-transformers; orjson, uvloop and httptools are used when
installed (they make the HTTP side faster, as in any production deployment).
"""

import os

# The model comes from a local folder; the benchmark machine may be offline.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# Tokenization runs in the encode thread; a second rayon pool would only
# compete with torch's threads for the same cores.
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import argparse  # noqa: E402
import asyncio  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402
from contextlib import asynccontextmanager  # noqa: E402
from importlib import metadata  # noqa: E402
from pathlib import Path  # noqa: E402

PACKAGES = ("infinity_emb", "torch", "sentence-transformers", "transformers", "tokenizers", "fastapi", "uvicorn",
            "pydantic", "orjson", "uvloop", "httptools", "numpy")


def versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {"python": sys.version.split()[0]}
    for p in PACKAGES:
        try:
            out[p] = metadata.version(p)
        except metadata.PackageNotFoundError:
            out[p] = None
    return out


def physical_cores() -> int:
    """Physical cores this process may use (SMT siblings make inference slower, not faster)."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1
    cores = set()
    for cpu in cpus:
        try:
            cores.add(Path(f"/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list").read_text().strip())
        except OSError:
            cores.add(str(cpu))
    return max(1, len(cores))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, help="sentence-transformers folder (with PyTorch weights)")
    ap.add_argument("--name", help="model name clients must send (default: the folder's name)")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8090)
    ap.add_argument("--threads", type=int, default=0, help="torch intra-op threads (0: physical cores)")
    ap.add_argument("--batch-size", type=int, default=32,
                    help="sentences per forward pass inside encode (default: %(default)s)")
    ap.add_argument("--max-sentences", type=int, default=256,
                    help="most sentences gathered into one encode call (default: %(default)s)")
    ap.add_argument("--wait-ms", type=float, default=2.0,
                    help="when a request finds the queue empty, wait this long for others to join (default: %(default)s)")
    ap.add_argument("--max-length", type=int, default=0, help="truncation in tokens (0: the model's max_seq_length)")
    ap.add_argument("--versions", action="store_true", help="print package versions as JSON and exit")
    args = ap.parse_args(argv)
    if args.versions:
        return args
    if args.model is None:
        ap.error("--model is required")
    if not args.model.is_dir():
        ap.error(f"--model: {args.model} is not a folder")
    if args.threads < 0 or args.batch_size < 1 or args.max_sentences < 1 or args.wait_ms < 0:
        ap.error("--threads, --batch-size, --max-sentences and --wait-ms must be positive")
    args.name = args.name or args.model.resolve().name
    args.threads = args.threads or physical_cores()
    return args


class Batcher:
    """Dynamic batching: many requests, one encode call."""

    def __init__(self, model, batch_size: int, max_sentences: int, wait_s: float):
        self.model = model
        self.batch_size = batch_size
        self.max_sentences = max_sentences
        self.wait_s = wait_s
        self.queue: asyncio.Queue = asyncio.Queue()
        # One thread: torch already uses every core for one forward pass, and
        # two encodes at once would only split the cores between them.
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="encode")
        self.task: asyncio.Task | None = None

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self.task:
            self.task.cancel()
            try:
                await self.task
            except asyncio.CancelledError:
                pass
        self.executor.shutdown(wait=True)

    async def embed(self, texts: list[str]):
        """Embeddings (numpy, one row per text) and token counts for one request."""
        fut = asyncio.get_running_loop().create_future()
        await self.queue.put((texts, fut))
        return await fut

    def _encode(self, texts: list[str]):
        # Token counts for "usage": a second tokenization, as every server
        # that reports usage without reaching into encode's internals pays.
        lengths = [len(ids) for ids in self.model.tokenizer(
            texts, truncation=True, max_length=self.model.max_seq_length,
            return_attention_mask=False, return_token_type_ids=False)["input_ids"]]
        vectors = self.model.encode(texts, batch_size=self.batch_size, normalize_embeddings=True,
                                    convert_to_numpy=True, show_progress_bar=False)
        return vectors, lengths

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            items = [await self.queue.get()]
            # Under load the queue has filled while the previous batch ran, so
            # this only delays a request that arrived at an idle server.
            if self.queue.empty() and self.wait_s > 0:
                await asyncio.sleep(self.wait_s)
            count = len(items[0][0])
            while count < self.max_sentences and not self.queue.empty():
                item = self.queue.get_nowait()
                items.append(item)
                count += len(item[0])
            texts = [t for item, _ in items for t in item]
            try:
                vectors, lengths = await loop.run_in_executor(self.executor, self._encode, texts)
            except Exception as e:  # answer every waiting request, keep serving
                for _, fut in items:
                    if not fut.done():
                        fut.set_exception(e)
                continue
            start = 0
            for item, fut in items:
                end = start + len(item)
                if not fut.done():  # the client may have gone away
                    fut.set_result((vectors[start:end], lengths[start:end]))
                start = end


def make_app(args: argparse.Namespace):
    import numpy as np
    import torch
    from fastapi import FastAPI
    from fastapi.responses import JSONResponse, Response
    from pydantic import BaseModel
    from sentence_transformers import SentenceTransformer

    try:
        import orjson

        def dumps(obj) -> bytes:
            return orjson.dumps(obj, option=orjson.OPT_SERIALIZE_NUMPY)
    except ImportError:
        def dumps(obj) -> bytes:
            return json.dumps(obj, default=lambda a: a.tolist(), separators=(",", ":")).encode()

    torch.set_num_threads(args.threads)
    model = SentenceTransformer(str(args.model), device="cpu")
    if args.max_length:
        model.max_seq_length = args.max_length
    model.eval()
    # Warm up before listening, so /ready means "serves at full speed".
    model.encode(["warm up"] * args.batch_size, batch_size=args.batch_size, show_progress_bar=False)
    batcher = Batcher(model, args.batch_size, args.max_sentences, args.wait_ms / 1000.0)

    @asynccontextmanager
    async def lifespan(_app):
        batcher.start()
        yield
        await batcher.stop()

    app = FastAPI(lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)

    # Defined here, not at module level, so that --versions needs no pydantic;
    # no `from __future__ import annotations` in this file, or FastAPI could
    # not resolve this local class and would read the body as a query field.
    class EmbeddingRequest(BaseModel):
        model: str | None = None
        input: str | list[str]
        encoding_format: str | None = None

    def error(status: int, message: str, kind: str) -> JSONResponse:
        return JSONResponse(status_code=status, content={"error": {"message": message, "type": kind}})

    @app.get("/ready")
    @app.get("/health")
    async def ready():
        return {"status": "ok"}

    @app.post("/v1/embeddings")
    async def embeddings(req: EmbeddingRequest):
        if req.model is not None and req.model != args.name:
            return error(404, f"model {req.model!r} not found; this server serves {args.name!r}", "not_found")
        if req.encoding_format not in (None, "float"):
            return error(400, "only encoding_format 'float' is supported", "invalid_request_error")
        texts = [req.input] if isinstance(req.input, str) else req.input
        if not texts:
            return error(400, "input must not be empty", "invalid_request_error")
        vectors, lengths = await batcher.embed(texts)
        tokens = int(sum(lengths))
        body = {
            "object": "list",
            "data": [{"object": "embedding", "index": i, "embedding": np.asarray(v, dtype=np.float32)}
                     for i, v in enumerate(vectors)],
            "model": args.name,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }
        return Response(content=dumps(body), media_type="application/json")

    return app


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.versions:
        print(json.dumps(versions()))
        return 0
    import uvicorn

    print(f"[peer] loading {args.model} as {args.name!r}, {args.threads} torch threads", file=sys.stderr, flush=True)
    app = make_app(args)
    # One process: more workers would each load the model and split the
    # same cores; a load balancer in front is not what this peer measures.
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", access_log=False, backlog=2048)
    return 0


if __name__ == "__main__":
    sys.exit(main())
