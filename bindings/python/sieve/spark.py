"""Bulk embedding on Apache Spark: `mapInPandas` with one model per Python
worker, kept across tasks, with ONNX Runtime's threads set to the task's
CPUs (`spark.task.cpus`).

    >>> import sieve.spark
    >>> df = spark.read.json("corpus.jsonl")                # rows with a "text" field
    >>> sieve.spark.embed(df, "models/all-MiniLM-L6-v2").write.parquet("vectors/")

Every row keeps its columns and gains one, `embedding` by default, an
array<float>: the vector `sieve embed` gives for its text, bit for bit.
The model folder must be readable at the same path on every executor, and
the executors' Python must have this package. Spark retries a task whose
worker or executor died, and keeps only the output of the attempt that
succeeded, so every row is written once (keep speculative execution off
for embedding, as it only doubles the work). Needs PySpark with pandas and
PyArrow (tested with PySpark 4.3.0, pandas 2.3.3, PyArrow 26.0.1).
"""
from __future__ import annotations

import os
from typing import Any, Callable, Iterator, Union

try:
    import pandas as pd
    from pyspark import TaskContext
    from pyspark.sql import DataFrame
    from pyspark.sql.types import ArrayType, FloatType, StringType, StructField, StructType
except ImportError as e:  # pragma: no cover - exercised only without PySpark
    raise ImportError("sieve.spark needs PySpark with pandas and PyArrow: pip install pyspark pandas pyarrow") from e

from ._bulk import check_options, column_texts, threads_for, worker_embedder
from .errors import InvalidArgument

__all__ = ["embed", "embed_partitions"]

ModelPath = Union[str, "os.PathLike[str]"]


def embed_partitions(model: ModelPath, column: str = "text", output_column: str = "embedding",
                     threads: int | None = None,
                     **options: Any) -> Callable[[Iterator["pd.DataFrame"]], Iterator["pd.DataFrame"]]:
    """The function `DataFrame.mapInPandas` runs: for each pandas batch of
    a partition, the batch with the vectors of `column` as `output_column`.
    The model is loaded once per Python worker. `threads` unset is the
    task's CPUs (`spark.task.cpus`). `options` are sieve.Embedder's."""
    check_options(options)
    folder = os.fspath(model)

    def run(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        task = TaskContext.get()
        embedder = worker_embedder(folder, threads or threads_for(task.cpus() if task else None), options)
        for batch in batches:
            texts = column_texts(batch[column].tolist(), column)
            vectors = embedder.encode(texts)
            yield batch.assign(**{output_column: list(vectors)})

    return run


def embed(df: "DataFrame", model: ModelPath, *, column: str = "text", output_column: str = "embedding",
          threads: int | None = None, **options: Any) -> "DataFrame":
    """`df` with the vectors of `column` (a string column) as
    `output_column` (array<float>). Lazy, as Spark is: nothing runs until
    the result is written or collected. How many rows reach the model at a
    time is Spark's `spark.sql.execution.arrow.maxRecordsPerBatch`."""
    fields = {field.name: field for field in df.schema.fields}
    if column not in fields:
        raise InvalidArgument(f"the DataFrame has no column {column!r} (it has: {', '.join(fields)})")
    if not isinstance(fields[column].dataType, StringType):
        raise InvalidArgument(f"column {column!r} is {fields[column].dataType.simpleString()}, not string")
    if output_column in fields:
        raise InvalidArgument(f"the DataFrame already has a column {output_column!r}: name another output_column")
    schema = StructType([*df.schema.fields, StructField(output_column, ArrayType(FloatType(), False), False)])
    return df.mapInPandas(embed_partitions(model, column, output_column, threads, **options), schema)
