"""Bulk embedding on Ray Data and Spark (bindings/python/sieve/ray.py,
spark.py), on clusters started here on loopback: Ray with 2 CPUs, Spark in
local[2] and as a standalone master and worker on 127.0.0.1. Each job reads
JSON Lines or Parquet and writes Parquet, which is read back with PyArrow:
every row must come back exactly once with the vector `sieve embed` gives
its text, bit for bit, also when a worker is SIGKILLed in the middle of
the job."""
from __future__ import annotations

import io
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import tier

from conftest import MODEL, ROOT, run_sieve

SENTENCES = ROOT / "tests" / "data" / "sentences.txt"
ROWS = 1200


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    """ROWS rows of mixed lengths, ids not in text order."""
    base = SENTENCES.read_text(encoding="utf-8").splitlines()
    texts = [base[i % len(base)] + ("" if i < len(base) else f" ({i // len(base)})") for i in range(ROWS)]
    order = np.random.default_rng(7).permutation(ROWS)
    return [{"id": int(i) * 3 + 1, "text": texts[i]} for i in order]


@pytest.fixture(scope="module")
def expected(rows) -> dict[int, np.ndarray]:
    """Each row's vector from `sieve embed`, by id."""
    text = "".join(row["text"] + "\n" for row in rows).encode()
    vectors = np.load(io.BytesIO(run_sieve("embed", "--model", str(MODEL), "--format", "npy", input=text).stdout))
    return {row["id"]: vectors[i] for i, row in enumerate(rows)}


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def check_output(table: pa.Table, expected: dict[int, np.ndarray], column: str = "embedding") -> None:
    """Every id once, with its text's vector bit for bit."""
    ids = table.column("id").to_pylist()
    assert len(ids) == len(set(ids)), f"{len(ids) - len(set(ids))} rows written twice"
    assert sorted(ids) == sorted(expected), f"{len(set(expected) - set(ids))} rows missing"
    vectors = np.array(table.column(column).to_pylist(), dtype=np.float32)
    want = np.stack([expected[i] for i in ids])
    assert vectors.shape == want.shape
    differ = np.flatnonzero((vectors != want).any(axis=1))
    assert differ.size == 0, f"{differ.size} rows differ from sieve embed, e.g. id {ids[differ[0]]}: " \
                             f"max |difference| {np.abs(vectors[differ[0]] - want[differ[0]]).max():.3g}"


def processes() -> list[tuple[int, int, str]]:
    """(pid, parent pid, command line) of every process."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                args = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            found.append((int(entry.name), parent, args))
    return found


class Killer(threading.Thread):
    """SIGKILLs the first process `pick` chooses once a file matching `ready`
    shows up under `folder` (the job is then under way), and remembers
    whether the job was still running when it did."""

    def __init__(self, folder: Path, ready: str, pick):
        super().__init__(daemon=True)
        self.folder, self.ready, self.pick = folder, ready, pick
        self.killed: str | None = None
        self.job_done = threading.Event()

    def run(self) -> None:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and not self.job_done.is_set():
            if self.folder.exists() and any(self.folder.rglob(self.ready)):
                victim = self.pick(processes())
                if victim is not None and not self.job_done.is_set():
                    os.kill(victim[0], signal.SIGKILL)
                    self.killed = victim[2].strip()
                    return
            time.sleep(0.02)


@pytest.fixture(scope="module")
def package(sieve):
    """The folder holding the package this process imports, on PYTHONPATH
    for the workers (Ray's actors, Spark's Python workers) while this
    module's tests run."""
    folder = Path(sieve.__file__).parents[1]
    saved = {name: os.environ.get(name) for name in ("PYTHONPATH", "SPARK_LOCAL_IP", "PYSPARK_PYTHON")}
    os.environ.update(PYTHONPATH=os.pathsep.join(filter(None, [str(folder), saved["PYTHONPATH"]])),
                      SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable)
    yield folder
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


# ----------------------------------------------------------------- Ray Data
@pytest.fixture(scope="module")
def ray_cluster(package):
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=256 << 20, log_to_driver=False,
             configure_logging=False)
    yield ray
    ray.shutdown()


def test_ray_jsonl_to_parquet_with_an_actor_killed(ray_cluster, sieve, rows, expected, tmp_path):
    """Two actors of half a CPU each (so that reading the input still finds
    a CPU on two cores); one is SIGKILLed once the first output file is
    written. Ray restarts it and retries its batch."""
    import sieve.ray as sieve_ray

    source = write_jsonl(tmp_path / "corpus.jsonl", rows)
    out = tmp_path / "vectors"
    killer = Killer(out, "*.parquet", lambda found: next(
        (p for p in found if "MapBatches(EmbedBatches)" in p[2] and p[2].startswith("ray::")), None))
    killer.start()
    sieve_ray.embed_files(source, out, MODEL, actors=2, cpus_per_actor=0.5, batch_size=40)
    killer.job_done.set()
    killer.join()
    assert killer.killed, "no actor was killed while the job ran"
    print(f"\nRay: killed {killer.killed!r} mid-job; {ROWS} rows written once each")
    check_output(pq.read_table(out), expected)


def test_ray_parquet_in_json_lines_out(ray_cluster, sieve, rows, expected, tmp_path):
    import sieve.ray as sieve_ray

    # A text column of another name.
    part = [{"id": r["id"], "body": r["text"]} for r in rows[:300]]
    source = tmp_path / "in"
    source.mkdir()
    pq.write_table(pa.Table.from_pylist(part[:150]), source / "a.parquet")
    pq.write_table(pa.Table.from_pylist(part[150:]), source / "b.parquet")
    sieve_ray.embed_files(source, tmp_path / "out", MODEL, column="body", output_format="json",
                          output_column="vector", cpus_per_actor=0.5)
    written = [json.loads(line) for f in sorted((tmp_path / "out").glob("*.json*"))
               for line in f.read_text().splitlines()]
    assert {tuple(r) for r in written} == {("id", "body", "vector")}
    check_output(pa.Table.from_pylist(written), {r["id"]: expected[r["id"]] for r in part}, "vector")


# A pool Ray grows and shrinks takes minutes to settle on two cores.
@pytest.mark.skipif(not tier.FULL, reason="full tier (scripts/test.sh --full)")
def test_ray_autoscaling_pool_over_a_dataset_of_your_own(ray_cluster, sieve, rows, expected):
    """docs/scale-out.md's own pipeline: `embed` on the caller's dataset with
    a (min, max) pool of actors."""
    import ray
    import sieve.ray as sieve_ray

    part = rows[:32]
    ds = sieve_ray.embed(ray.data.from_items(part), MODEL, actors=(1, 2), cpus_per_actor=0.5, batch_size=8)
    check_output(pa.Table.from_pylist(ds.take_all()), {r["id"]: expected[r["id"]] for r in part})


def test_ray_bad_input_is_a_clear_error(ray_cluster, sieve, tmp_path):
    import ray
    import sieve.ray as sieve_ray

    with pytest.raises(sieve.InvalidArgument, match="cannot tell what"):
        sieve_ray.embed_files(write_jsonl(tmp_path / "x.txt", []), tmp_path / "o", MODEL)
    with pytest.raises(sieve.InvalidArgument, match="cpus_per_actor"):
        sieve_ray.embed(ray.data.from_items([{"text": "a"}]), MODEL, cpus_per_actor=0)
    with pytest.raises(sieve.InvalidArgument, match="unknown Embedder option: pooling_mode"):
        sieve_ray.embed(ray.data.from_items([{"text": "a"}]), MODEL, pooling_mode="mean")
    ds = ray.data.from_items([{"id": 1, "body": "a"}])
    with pytest.raises(Exception, match="no column 'text'"):
        sieve_ray.embed(ds, MODEL, cpus_per_actor=0.5).take_all()
    ds = ray.data.from_items([{"text": "a"}, {"text": None}])
    with pytest.raises(Exception, match="column 'text': row 1 of a batch of 2 is null, not text"):
        sieve_ray.embed(ds, MODEL, cpus_per_actor=0.5).take_all()


# -------------------------------------------------------------------- Spark
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spark_session(master: str, package: Path, **config: str):
    from pyspark.sql import SparkSession

    builder = (SparkSession.builder.master(master).appName("sieve-test")
               .config("spark.ui.enabled", "false")
               .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.pyspark.python", sys.executable)
               .config("spark.executorEnv.PYTHONPATH", str(package))
               .config("spark.sql.execution.arrow.maxRecordsPerBatch", "64"))
    for key, value in config.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    # The tests kill workers on purpose: the stack traces Spark logs for them would only be noise.
    session.sparkContext.setLogLevel("FATAL")
    return session


@pytest.fixture(scope="module")
def spark_env(package):
    pytest.importorskip("pyspark")
    return package


def test_spark_local_with_a_python_worker_killed(spark_env, sieve, rows, expected, tmp_path):
    """local[2] with up to 4 attempts per task; the Python worker that meets
    one chosen row kills itself with SIGKILL the first time, mid-batch."""
    import sieve.spark as sieve_spark

    marker = tmp_path / "killed"
    victim_id = rows[len(rows) // 2]["id"]
    embed = sieve_spark.embed_partitions(MODEL)

    def dying(batches):
        for batch in embed(batches):
            if victim_id in set(batch["id"]) and not marker.exists():
                marker.write_text(str(os.getpid()))
                os.kill(os.getpid(), signal.SIGKILL)
            yield batch

    session = spark_session("local[2,4]", spark_env)
    try:
        df = session.read.json(str(write_jsonl(tmp_path / "corpus.jsonl", rows))).repartition(4)
        schema = sieve_spark.embed(df, MODEL).schema
        df.mapInPandas(dying, schema).write.parquet(str(tmp_path / "out"))
    finally:
        session.stop()
    assert marker.exists(), "no Python worker was killed"
    check_output(pq.read_table(tmp_path / "out"), expected)


@pytest.fixture(scope="module")
def spark_standalone(spark_env, tmp_path_factory):
    """A standalone master and one worker (2 cores) on 127.0.0.1, stopped by
    process id."""
    import pyspark

    home = Path(pyspark.__file__).parent
    logs = tmp_path_factory.mktemp("spark")
    env = dict(os.environ, SPARK_HOME=str(home), SPARK_LOG_DIR=str(logs), SPARK_WORKER_DIR=str(logs / "work"),
               SPARK_LOCAL_IP="127.0.0.1")
    port = free_port()
    started = []

    def start(name: str, *args: str) -> subprocess.Popen:
        log = open(logs / f"{name}.log", "wb")
        proc = subprocess.Popen([str(home / "bin" / "spark-class"), *args], env=env, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
        started.append(proc)
        return proc

    def wait_for(name: str, text: str) -> None:
        deadline = time.monotonic() + 90
        while text not in (logs / f"{name}.log").read_text(errors="replace"):
            if time.monotonic() > deadline or started[-1].poll() is not None:
                raise AssertionError(f"Spark {name} did not start:\n{(logs / f'{name}.log').read_text()[-3000:]}")
            time.sleep(0.2)

    try:
        start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
              "--webui-port", str(free_port()))
        wait_for("master", "I have been elected leader")
        start("worker", "org.apache.spark.deploy.worker.Worker", f"spark://127.0.0.1:{port}", "--host", "127.0.0.1",
              "--cores", "2", "--memory", "2g", "--webui-port", str(free_port()))
        wait_for("worker", "Successfully registered with master")
        yield f"spark://127.0.0.1:{port}"
    finally:
        for proc in reversed(started):
            os.killpg(proc.pid, signal.SIGTERM)
        for proc in started:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


# A standalone cluster's start and an executor's replacement take more than a minute on two cores; the fast tier
# kills a Python worker of local Spark instead (test_spark_local_with_a_python_worker_killed).
@pytest.mark.skipif(not tier.FULL, reason="full tier (scripts/test.sh --full)")
def test_spark_standalone_with_the_executor_killed(spark_standalone, spark_env, sieve, rows, expected, tmp_path):
    """The standalone cluster's executor JVM is SIGKILLed once the first task
    has written rows; the worker starts a new executor and the lost tasks run
    again. Parquet in, Parquet out."""
    import sieve.spark as sieve_spark

    source = tmp_path / "in.parquet"
    pq.write_table(pa.Table.from_pylist(rows), source)
    out = tmp_path / "out"
    killer = Killer(out, "part-*", lambda found: next(
        (p for p in found if "CoarseGrainedExecutorBackend" in p[2]), None))
    session = spark_session(spark_standalone, spark_env, **{"spark.task.maxFailures": "4",
                                                           "spark.executor.memory": "1g"})
    try:
        killer.start()
        df = session.read.parquet(str(source)).repartition(6)
        sieve_spark.embed(df, MODEL).write.parquet(str(out))
    finally:
        killer.job_done.set()
        session.stop()
    killer.join()
    assert killer.killed, "the executor was not killed while the job ran"
    print(f"\nSpark standalone: killed the executor mid-job; {ROWS} rows written once each")
    check_output(pq.read_table(out), expected)


def test_spark_refuses_what_it_cannot_embed(spark_env, sieve, tmp_path):
    import sieve.spark as sieve_spark

    session = spark_session("local[1]", spark_env)
    try:
        df = session.createDataFrame([(1, "a")], "id long, body string")
        with pytest.raises(sieve.InvalidArgument, match="no column 'text'"):
            sieve_spark.embed(df, MODEL)
        with pytest.raises(sieve.InvalidArgument, match="column 'id' is bigint, not string"):
            sieve_spark.embed(df, MODEL, column="id")
        with pytest.raises(sieve.InvalidArgument, match="already has a column 'body'"):
            sieve_spark.embed(df, MODEL, column="body", output_column="body")
        nulls = session.createDataFrame([(1, "a"), (2, None)], "id long, text string").coalesce(1)
        with pytest.raises(Exception, match="column 'text': row 1 of a batch of 2 is null, not text"):
            sieve_spark.embed(nulls, MODEL).collect()
    finally:
        session.stop()
