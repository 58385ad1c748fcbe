#!/usr/bin/env python3
"""Bulk embedding throughput: one Python process with sieve.Embedder against
the same rows through sieve.ray (Ray Data actors) and sieve.spark (Spark's
mapInPandas), each with 1 and 2 workers, in one run on the same machine.

    .venv/bin/python bench/scaleout/bulk_bench.py [--rows 4000] [--rounds 3]

Every configuration embeds the same rows (tests/data/sentences.txt repeated
with a counter, mixed lengths) from a Parquet file into memory, with the
same total of ONNX Runtime threads as workers (one per worker). The
one-process and Ray legs run in interleaved rounds; Spark allows one
SparkContext per process at a time, so each Spark leg runs its rounds in a
row after a warm-up job. Clusters are started before timing; a job's time
includes starting its workers and loading the model in each. Prints a markdown table of
medians (rows/s, rows/s per worker, and the ratio to one process with the
same threads, for the whole job and for the rate after start-up, which
leaves out a job's fixed cost as measured by a 64-row job); every job's
vectors are checked against the one process's.
On a 2-core machine two workers share the cores with the cluster's own
processes: the figures show what the engines cost per row, not how they
scale with machines.
"""
from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FEW = 64
BATCH = 512  # rows per batch handed to a worker, in Ray and in Spark


def package_dir(build: Path, work: Path) -> Path:
    """A copy of the package (so that a rebuild cannot change what is measured)."""
    modules = sorted((build / "bindings" / "python").glob("_sieve*.so"))
    if not modules:
        raise SystemExit(f"no extension module in {build / 'bindings' / 'python'}: run scripts/bootstrap.sh")
    package = work / "python" / "sieve"
    package.mkdir(parents=True)
    for source in (ROOT / "bindings" / "python" / "sieve").glob("*.py"):
        shutil.copy2(source, package / source.name)
    shutil.copy2(modules[-1], package / modules[-1].name)
    return package.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, default=ROOT / "models" / "all-MiniLM-L6-v2")
    parser.add_argument("--build", type=Path, default=ROOT / "build")
    parser.add_argument("--rows", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="sieve-bulk-bench-"))
    package = package_dir(args.build, work)
    os.environ["PYTHONPATH"] = str(package)
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    os.environ["PYSPARK_PYTHON"] = sys.executable
    sys.path.insert(0, str(package))

    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq
    import sieve

    base = (ROOT / "tests" / "data" / "sentences.txt").read_text(encoding="utf-8").splitlines()
    texts = [base[i % len(base)] + f" ({i // len(base)})" for i in range(args.rows)]
    sources = {"all": work / "rows.parquet", "few": work / "few.parquet"}
    pq.write_table(pa.table({"id": list(range(args.rows)), "text": texts}), sources["all"])
    pq.write_table(pa.table({"id": list(range(FEW)), "text": texts[:FEW]}), sources["few"])
    model = str(args.model)

    def one_process(threads: int):
        def run(source):
            embedder = sieve.Embedder(model, threads=threads)
            return embedder.encode(pq.read_table(source).column("text").to_pylist())
        return run

    import ray
    import sieve.ray as sieve_ray
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=512 << 20, log_to_driver=False,
             configure_logging=False, logging_level="ERROR")
    ray.data.DataContext.get_current().enable_progress_bars = False

    def ray_job(actors: int):
        def run(source):
            # Half a CPU each: reading the input must still find a CPU on two cores.
            # One small file is one block, which one actor would embed alone.
            dataset = ray.data.read_parquet(str(source)).repartition(4 * actors)
            out = sieve_ray.embed(dataset, model, actors=actors, cpus_per_actor=0.5, threads=1,
                                  batch_size=BATCH).to_arrow_refs()
            table = pa.concat_tables(ray.get(out)).sort_by("id")
            return np.array(table.column("embedding").to_pylist(), dtype=np.float32)
        return run

    from pyspark.sql import SparkSession
    import sieve.spark as sieve_spark

    def spark_job(session, cores: int):
        def run(source):
            df = session.read.parquet(str(source)).repartition(cores * 4)
            # Sorted here, not with orderBy: Spark would run the job twice (once to sample the range bounds).
            rows = sorted(sieve_spark.embed(df, model, threads=1).select("id", "embedding").collect())
            return np.array([r.embedding for r in rows], dtype=np.float32)
        return run

    reference = one_process(2)(sources["all"])
    times: dict[tuple[str, str], list[float]] = {}

    def measure(label: str, run) -> None:
        """A job on every row, then one on FEW rows: the second is mostly
        the job's fixed cost (scheduling, starting workers, loading the
        model), which the rate after start-up leaves out."""
        for size in ("all", "few"):
            start = time.perf_counter()
            vectors = run(sources[size])
            times.setdefault((label, size), []).append(time.perf_counter() - start)
            if not np.array_equal(vectors, reference[:len(vectors)]) or len(vectors) != (args.rows, FEW)[size == "few"]:
                raise SystemExit(f"{label}: vectors differ from one process's")
        print(f"{label}: {times[label, 'all'][-1]:.2f} s, {FEW} rows {times[label, 'few'][-1]:.2f} s", file=sys.stderr)

    legs = [("one process, 1 thread", 1, one_process(1)), ("one process, 2 threads", 2, one_process(2)),
            ("Ray Data, 1 actor", 1, ray_job(1)), ("Ray Data, 2 actors", 2, ray_job(2))]
    for _ in range(args.rounds):  # interleaved, so that the machine's drift hits every leg alike
        for label, _, run in legs:
            measure(label, run)
    ray.shutdown()
    # One SparkContext per process at a time: each Spark leg runs its rounds in a row.
    for cores in (1, 2):
        session = (SparkSession.builder.master(f"local[{cores}]").appName(f"sieve-bulk-{cores}")
                   .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1")
                   .config("spark.driver.bindAddress", "127.0.0.1")
                   .config("spark.sql.execution.arrow.maxRecordsPerBatch", str(BATCH)).getOrCreate())
        session.sparkContext.setLogLevel("ERROR")
        spark_job(session, cores)(sources["few"])  # warm-up: the JVM's first job compiles its plan
        for _ in range(args.rounds):
            measure(f"Spark local[{cores}]", spark_job(session, cores))
        session.stop()
        legs.append((f"Spark local[{cores}]", cores, None))

    print(f"\n{args.rows} rows, {args.model.name}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, medians of {args.rounds} rounds\n")
    print("| configuration | workers | job s | rows/s | per worker | vs one process | "
          f"{FEW}-row job s | rows/s after start-up | vs one process |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")

    def rates(label: str) -> tuple[float, float, float, float]:
        whole, few = statistics.median(times[label, "all"]), statistics.median(times[label, "few"])
        return whole, args.rows / whole, few, (args.rows - FEW) / max(whole - few, 1e-9)

    single = {1: rates("one process, 1 thread"), 2: rates("one process, 2 threads")}
    for label, workers, _ in legs:
        whole, rate, few, steady = rates(label)
        print(f"| {label} | {workers} | {whole:.1f} | {rate:.0f} | {rate / workers:.0f} | "
              f"{rate / single[workers][1]:.2f} | {few:.1f} | {steady:.0f} | {steady / single[workers][3]:.2f} |")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
