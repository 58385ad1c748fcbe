"""Bulk embedding on Ray Data: a pool of actors, one model loaded per actor,
each actor's ONNX Runtime threads set to the CPUs it holds.

    >>> import ray, sieve.ray
    >>> ds = ray.data.read_json("corpus.jsonl")           # rows with a "text" field
    >>> sieve.ray.embed(ds, "models/all-MiniLM-L6-v2", actors=4).write_parquet("vectors/")

or, from files to files, `sieve.ray.embed_files("corpus.jsonl", "vectors/",
"models/all-MiniLM-L6-v2")`. Every row keeps its columns and gains one, a
fixed-size list of float32 (`embedding` by default): the vector `sieve embed`
gives for its text, bit for bit. The model folder must be readable at the
same path on every node.

Ray retries a batch whose actor died (a killed process, a lost node) on a
restarted actor, so every row is written once. Actors ask for
`cpus_per_actor` CPUs, which may be a fraction: on a small machine, keep
the pool's total below the CPUs Ray has, or the tasks that read the input
find no CPU left and the job waits forever. Needs Ray Data:
pip install "ray[data]" (tested with 2.60.0).
"""
from __future__ import annotations

import json
import os
from typing import Any, Sequence, Union

try:
    import pyarrow as pa
    import ray
    import ray.data
    from ray.data.datasource import BlockBasedFileDatasink
except ImportError as e:  # pragma: no cover - exercised only without Ray
    raise ImportError('sieve.ray needs Ray Data: pip install "ray[data]"') from e

import numpy as np

from ._bulk import check_options, column_texts, threads_for, worker_embedder
from .errors import InvalidArgument

__all__ = ["EmbedBatches", "embed", "embed_files"]

ModelPath = Union[str, "os.PathLike[str]"]


class EmbedBatches:
    """The callable class `Dataset.map_batches` runs in each actor (with
    batch_format="pyarrow"): it loads the model once, then appends the
    vectors of `column` to every batch as `output_column`. `threads` unset
    is the actor's CPU share, at least one. `options` are sieve.Embedder's
    (pooling, normalize, max_length, dimensions, prompt, providers, ...)."""

    def __init__(self, model: ModelPath, column: str = "text", output_column: str = "embedding",
                 threads: int | None = None, **options: Any):
        check_options(options)
        if threads is None:
            threads = threads_for(ray.get_runtime_context().get_assigned_resources().get("CPU"))
        self._model = worker_embedder(model, threads, options)
        self._column, self._output = column, output_column

    def __call__(self, batch: "pa.Table") -> "pa.Table":
        if self._column not in batch.column_names:
            raise InvalidArgument(f"the rows have no column {self._column!r} (they have: "
                                  f"{', '.join(batch.column_names)})")
        if self._output in batch.column_names:
            raise InvalidArgument(f"the rows already have a column {self._output!r}: name another output_column")
        texts = column_texts(batch.column(self._column).to_pylist(), self._column)
        vectors = self._model.encode(texts) if texts else np.zeros((0, self._model.dimension), np.float32)
        flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1), type=pa.float32())
        return batch.append_column(self._output, pa.FixedSizeListArray.from_arrays(flat, self._model.dimension))


def embed(dataset: "ray.data.Dataset", model: ModelPath, *, column: str = "text", output_column: str = "embedding",
          actors: Union[int, tuple[int, int]] = 1, cpus_per_actor: float = 1.0, batch_size: int = 256,
          threads: int | None = None, **options: Any) -> "ray.data.Dataset":
    """`dataset` with the vectors of `column` as `output_column`, computed
    by a pool of `actors` actors (or (min, max) for an autoscaling pool),
    each holding `cpus_per_actor` CPUs (a fraction is allowed) and one
    model with that many threads (or `threads`). `batch_size` rows go to
    an actor at a time; the model batches them again by length. Lazy, as
    Ray Data is: nothing runs until the result is consumed or written.

    Ray hands rows to actors a block at a time: a dataset read from one
    small file is a single block, which one actor embeds while the others
    wait. `repartition` such a dataset first (a few blocks per actor), as
    embed_files does. Each batch is sorted by length before it is cut into
    model batches: larger batches pad less."""
    check_options(options)
    if batch_size < 1:
        raise InvalidArgument("batch_size must be at least 1")
    if cpus_per_actor <= 0:
        raise InvalidArgument("cpus_per_actor must be above 0")
    size = (actors, actors) if isinstance(actors, int) else tuple(actors)
    if len(size) != 2 or size[0] < 1 or size[1] < size[0]:
        raise InvalidArgument(f"actors must be a count of at least 1 or (min, max), not {actors!r}")
    if threads is None:
        threads = threads_for(cpus_per_actor)
    return dataset.map_batches(EmbedBatches, batch_format="pyarrow", batch_size=batch_size,
                               compute=ray.data.ActorPoolStrategy(min_size=size[0], max_size=size[1]),
                               num_cpus=cpus_per_actor,
                               fn_constructor_kwargs=dict(model=os.fspath(model), column=column,
                                                          output_column=output_column, threads=threads, **options))


class _JsonLines(BlockBasedFileDatasink):
    """JSON Lines whose floats read back as the same float32 values (Ray's
    own JSON writer keeps 10 decimal places)."""

    def __init__(self, path: str):
        super().__init__(path, file_format="jsonl")

    def write_block_to_file(self, block, file) -> None:
        rows = block.to_arrow().to_pylist()
        file.write("".join(json.dumps(row, ensure_ascii=False, default=str) + "\n" for row in rows).encode())


_READERS = {".parquet": "parquet", ".jsonl": "json", ".json": "json", ".csv": "csv"}


def _blocks_for(paths: list[str], actors: Union[int, tuple[int, int]]) -> int | None:
    """Blocks to split a small local input into: Ray reads a small file as
    one block, which one actor would embed alone, so 4 per actor. None (as
    Ray reads it) for input that is not local or is over 1 GiB, which Ray
    reads as many blocks already."""
    size = 0
    for path in paths:
        if not os.path.exists(path):
            return None
        if os.path.isdir(path):
            size += sum(e.stat().st_size for e in os.scandir(path) if e.is_file())
        else:
            size += os.path.getsize(path)
    if size > 1 << 30:
        return None
    return 4 * (actors if isinstance(actors, int) else max(actors))


def embed_files(source: Union[ModelPath, Sequence[ModelPath]], destination: ModelPath, model: ModelPath, *,
                output_format: str = "parquet", blocks: int | None = None, **embed_options: Any) -> None:
    """Reads `source` (Parquet, JSON Lines or CSV files, or folders of
    them, told apart by their extension), embeds it with embed() and writes
    `destination`, a folder of Parquet or JSON Lines ("json") files. Both
    keep every float32 of the vectors exactly. `blocks` is how many blocks
    the input is split into so that every actor has work: unset, 4 per
    actor for a local input of up to 1 GiB, which Ray would read as one
    block per file; larger input is left as Ray reads it."""
    paths = [os.fspath(source)] if isinstance(source, (str, os.PathLike)) else [os.fspath(p) for p in source]
    if not paths:
        raise InvalidArgument("no source files")
    kinds = set()
    for path in paths:
        if os.path.isdir(path):
            names = [name for name in os.listdir(path) if not name.startswith((".", "_"))]
            kinds.update(_READERS.get(os.path.splitext(name)[1].lower()) for name in names)
        else:
            kinds.add(_READERS.get(os.path.splitext(path)[1].lower()))
    if len(kinds) != 1 or None in kinds:
        raise InvalidArgument(f"cannot tell what {', '.join(paths)} hold{'s' if len(paths) == 1 else ''}: name "
                              "files (or folders of files) ending in .parquet, .jsonl, .json or .csv, of one kind")
    if blocks is None:
        blocks = _blocks_for(paths, embed_options.get("actors", 1))
    if output_format not in ("parquet", "json"):
        raise InvalidArgument(f'output_format must be "parquet" or "json", not {output_format!r}')
    dataset = getattr(ray.data, f"read_{kinds.pop()}")(paths)
    if blocks:
        # Splitting blocks needs the input read first, which is cheap for what
        # _blocks_for splits (a small local input) and the embedding is not.
        dataset = dataset.repartition(blocks)
    embedded = embed(dataset, model, **embed_options)
    if output_format == "json":
        embedded.write_datasink(_JsonLines(os.fspath(destination)))
    else:
        embedded.write_parquet(os.fspath(destination))
