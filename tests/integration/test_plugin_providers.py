"""Execution providers loaded as ONNX Runtime plugin libraries (OpenVINO's, put beside the ONNX Runtime library by
the set-up), and OpenVINO's own runtime where its plugin offers no device: the same vectors as the CPU provider
within bf16's tolerance, one clear line for each bad option, and the documented fallback when the library is
missing."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import FIXTURES_DIR, MODEL, run_sieve, sieve_bin

TEXTS = (
    "A cat sits on the mat.\n"
    "Plugins are shared libraries that ONNX Runtime loads at run time, so that one build serves many devices.\n"
    "Héllo wörld, 東京は日本の首都です。\n"
)


def version_line(prefix: str) -> str:
    out = subprocess.run([str(sieve_bin()), "--version"], capture_output=True, timeout=120).stdout.decode()
    return next((line.strip() for line in out.splitlines() if line.strip().startswith(prefix)), "")


# Why `sieve --version` lists OpenVINO's plugin as unavailable here, or "": it offers devices on Intel hardware
# only. Elsewhere `--provider openvino` runs the whole graph on OpenVINO's own runtime, which the set-up installs
# beside the plugin; the tests below skip only where neither runs.
NO_DEVICE = version_line("openvino: unavailable ")
RUNTIME = version_line("OpenVINO runtime")
NO_OPENVINO = NO_DEVICE if NO_DEVICE and RUNTIME.startswith("OpenVINO runtime: unavailable") else ""
needs_device = pytest.mark.skipif(bool(NO_OPENVINO), reason=f"OpenVINO cannot run here: {NO_OPENVINO}; {RUNTIME}")


def embed(*provider: str) -> tuple[np.ndarray, str]:
    done = subprocess.run([str(sieve_bin()), "--log-level", "info", "embed", "--model", str(MODEL), "--format",
                           "jsonl", *provider], input=TEXTS.encode(), capture_output=True, timeout=300, check=True)
    rows = [json.loads(line) for line in done.stdout.decode().splitlines()]
    return np.array([r if isinstance(r, list) else r["embedding"] for r in rows], dtype=np.float64), \
        done.stderr.decode()


@pytest.fixture(scope="module")
def cpu_vectors() -> np.ndarray:
    return embed()[0]


@needs_device
@pytest.mark.parametrize("spec, cosine", [("openvino", 0.999), ("openvino:precision=f32,threads=1", 0.99999)])
def test_openvino_plugin_matches_the_cpu_provider(cpu_vectors, spec, cosine):
    vectors, log = embed("--provider", spec)
    assert "uses providers [openvino, cpu]" in log, log
    cos = (vectors * cpu_vectors).sum(1) / np.linalg.norm(vectors, axis=1) / np.linalg.norm(cpu_vectors, axis=1)
    assert cos.min() >= cosine, cos


@pytest.mark.parametrize("spec, message", [
    ("openvino:colour=red", 'unknown openvino option "colour"'),
    ("openvino:precision=int3", "is not one of bf16, f32, f16, accuracy"),
    ("openvino:threads=many", "is not a thread count"),
    ("openvino:precision=", 'option "precision" has no value'),
])
def test_a_bad_option_is_one_clear_line(spec, message):
    done = run_sieve("embed", "--model", str(MODEL), "--provider", spec, input=b"x\n", check=False)
    err = done.stderr.decode()
    assert done.returncode != 0 and message in err, err
    assert len([line for line in err.splitlines() if "error" in line]) == 1, err


@needs_device
def test_a_device_this_machine_lacks_is_one_clear_line():
    done = run_sieve("embed", "--model", str(MODEL), "--provider", "openvino:device=QPU", input=b"x\n", check=False)
    assert done.returncode != 0 and "option device=QPU: this machine offers CPU" in done.stderr.decode()


@needs_device
def test_an_output_behind_an_identity_node_is_found_by_its_files_name(tmp_path):
    """OpenVINO names a tensor with several names by one of them; Sieve finds the graph's ports by the file's own
    names, so a graph whose output comes through an Identity node (two names on one tensor) runs as on the CPU."""
    import onnx
    source = FIXTURES_DIR / "tiny-bert-tokens"
    folder = tmp_path / "ident"
    shutil.copytree(source, folder)
    graph = onnx.load(str(folder / "model.onnx"))
    out = graph.graph.output[0].name
    for node in graph.graph.node:
        node.output[:] = ["a_internal" if o == out else o for o in node.output]
    graph.graph.node.append(onnx.helper.make_node("Identity", ["a_internal"], [out]))
    onnx.save(graph, str(folder / "model.onnx"))
    rows = {}
    for provider in ("cpu", "openvino:precision=f32"):
        done = run_sieve("embed", "--model", str(folder), "--format", "jsonl", "--provider", provider,
                         input=TEXTS.encode())
        rows[provider] = np.array([json.loads(line) for line in done.stdout.decode().splitlines()])
    np.testing.assert_allclose(rows["openvino:precision=f32"], rows["cpu"], atol=1e-5)


@pytest.mark.skipif(not NO_DEVICE, reason="OpenVINO's plugin offers a device here")
def test_where_the_plugin_has_no_device_openvinos_runtime_runs_the_graph(cpu_vectors, tmp_path):
    """Where the plugin offers no device (a CPU not Intel's), Sieve says so with the hardware ONNX Runtime sees and
    runs the whole graph on OpenVINO's own runtime (--strict-providers takes it: OpenVINO runs). Without that
    runtime beside the plugin, the model runs on the CPU provider with both reasons said, or is refused when
    strict."""
    assert "offers no device on this machine (it takes Intel CPUs, GPUs and NPUs only; ONNX Runtime sees a CPU by" in \
        NO_DEVICE, NO_DEVICE
    assert RUNTIME.startswith("OpenVINO runtime 20") and "devices CPU" in RUNTIME, RUNTIME
    vectors, log = embed("--provider", "openvino:precision=f32", "--strict-providers")
    assert "OpenVINO plugin cannot run here (the openvino plugin offers no device" in log, log
    assert "OpenVINO runtime 20" in log and "on CPU at f32 runs the whole graph" in log, log
    cos = (vectors * cpu_vectors).sum(1) / np.linalg.norm(vectors, axis=1) / np.linalg.norm(cpu_vectors, axis=1)
    assert cos.min() >= 0.99999, cos
    # The plugin's folder (where the set-up puts the runtime too) without OpenVINO's C library: links to every other
    # file of it.
    plugin_dir = Path(RUNTIME.split(": ", 1)[1].split(", devices", 1)[0]).parent
    for f in plugin_dir.iterdir():
        if f.is_file() and not f.name.startswith("libopenvino_c."):
            (tmp_path / f.name).symlink_to(f)
    spec = f"openvino:library={tmp_path}/libonnxruntime_providers_openvino_plugin.so"
    vectors, log = embed("--provider", spec)
    assert "OpenVINO's runtime cannot run" in log and "libopenvino_c.so was not found" in log, log
    assert "execution provider openvino skipped: the openvino plugin offers no device" in log, log
    np.testing.assert_array_equal(vectors, cpu_vectors)
    done = run_sieve("embed", "--model", str(MODEL), "--provider", spec, "--strict-providers", input=b"x\n",
                     check=False)
    assert done.returncode != 0 and "offers no device on this machine" in done.stderr.decode()


def test_a_missing_library_falls_back_with_a_warning_or_is_refused_when_strict(cpu_vectors):
    spec = "openvino:library=/nonexistent/libplugin.so"
    vectors, log = embed("--provider", spec)
    assert "execution provider openvino skipped" in log and "/nonexistent/libplugin.so" in log, log
    assert "uses providers [cpu]" in log, log
    np.testing.assert_array_equal(vectors, cpu_vectors)
    done = run_sieve("embed", "--model", str(MODEL), "--provider", spec, "--strict-providers", input=b"x\n",
                     check=False)
    assert done.returncode != 0 and 'execution provider "openvino" is unavailable' in done.stderr.decode()


@pytest.mark.skipif(bool(NO_DEVICE), reason=f"OpenVINO's plugin has no device here: {NO_DEVICE}")
def test_version_lists_the_plugin_with_its_devices():
    out = run_sieve("--version").stdout.decode()
    section = out.split("plugin providers:", 1)[1]
    assert "openvino: " in section and "libonnxruntime_providers_openvino_plugin.so" in section, out
    assert "device CPU:" in section, out


@pytest.mark.parametrize("provider", ["cpu", pytest.param("openvino", marks=needs_device)])
def test_info_reports_how_the_graph_is_placed(provider):
    info = json.loads(run_sieve("info", "--model", str(MODEL), "--provider", provider, "--json").stdout)
    placed = {p["provider"]: p for p in info["partition"]}
    assert list(placed) == info["providers"], info["partition"]
    total = sum(p["nodes"] for p in placed.values())
    assert total > 50 and sum(sum(p["operators"].values()) for p in placed.values()) == total
    # OpenVINO takes the whole fused graph (Attention, BiasGelu included) as one compiled subgraph.
    assert placed[provider]["nodes"] == total, info["partition"]
    if provider == "openvino":
        assert placed["openvino"]["subgraphs"] == 1 and placed["cpu"]["nodes"] == 0
        # Where the plugin has no device, OpenVINO's runtime took the ONNX file whole, and says so.
        assert ("engine" in placed["openvino"]) == bool(NO_DEVICE), info["partition"]
        assert bool(info["openvino_runtime"]["devices"]) == ("error" not in info["openvino_runtime"]), info
    plugins = {p["name"]: p for p in info["plugins"]}
    assert list(plugins) == ["openvino", "tensorrt_rtx"]
    assert plugins["openvino"]["devices"][0]["device"] == "CPU" if not NO_DEVICE else "no device" in plugins["openvino"]["error"]
    text = run_sieve("info", "--model", str(MODEL), "--provider", provider).stdout.decode()
    assert f"placement:   {provider}: {total} nodes" in text, text


@needs_device
def test_the_python_package_takes_the_plugin(sieve, cpu_vectors):
    model = sieve.Embedder(MODEL, providers=["openvino:precision=f32"])
    assert model.providers == ["openvino", "cpu"]
    vectors = np.asarray(model.encode(TEXTS.splitlines()), dtype=np.float64)
    cos = (vectors * cpu_vectors).sum(1) / np.linalg.norm(vectors, axis=1) / np.linalg.norm(cpu_vectors, axis=1)
    assert cos.min() >= 0.99999, cos
    with pytest.raises(Exception, match='unknown openvino option "colour"'):
        sieve.Embedder(MODEL, providers=["openvino:colour=red"])


CROSS_ENCODER = FIXTURES_DIR / "cross-encoder-minilm-l6"
PAIRS_QUERY = "how do cats sleep"
DOCUMENTS = ["a cat sleeps on the mat all day long", "the stock market fell sharply",
             "cats sleep up to sixteen hours a day, mostly in short naps", "Héllo wörld, 東京は日本の首都です。"]


def raw_scores(*provider: str) -> np.ndarray:
    done = run_sieve("rerank", "--model", str(CROSS_ENCODER), "--query", PAIRS_QUERY, "--raw-scores", *provider,
                     input="".join(d + "\n" for d in DOCUMENTS).encode())
    rows = json.loads(done.stdout)["results"]
    return np.array([r["score"] for r in sorted(rows, key=lambda r: r["index"])])


@needs_device
@pytest.mark.parametrize("spec, tolerance", [("openvino", 0.2), ("openvino:precision=f32", 1e-4)])
def test_a_cross_encoder_runs_on_the_plugin(spec, tolerance):
    """bf16 (the default precision here) moves a logit by up to about 0.1 on this model; f32 by rounding only."""
    cpu, plugin = raw_scores(), raw_scores("--provider", spec)
    assert np.abs(plugin - cpu).max() <= tolerance, (cpu, plugin)
    assert list(np.argsort(plugin)) == list(np.argsort(cpu))


def sparse_rows(splade: Path, *provider: str) -> np.ndarray:
    done = run_sieve("embed", "--model", str(splade), "--sparse", *provider,
                     input="".join(d + "\n" for d in DOCUMENTS).encode())
    rows = [json.loads(line) for line in done.stdout.decode().splitlines()]
    dense = np.zeros((len(rows), 1 + max(e["index"] for r in rows for e in r)))
    for i, r in enumerate(rows):
        for e in r:
            dense[i, e["index"]] = e["value"]
    return dense


@needs_device
@pytest.mark.parametrize("spec, cosine", [("openvino", 0.999), ("openvino:precision=f32", 0.99999)])
def test_a_splade_model_runs_on_the_plugin(splade_tiny, spec, cosine):
    cpu, plugin = sparse_rows(splade_tiny.folder), sparse_rows(splade_tiny.folder, "--provider", spec)
    width = max(cpu.shape[1], plugin.shape[1])
    cpu, plugin = (np.pad(x, ((0, 0), (0, width - x.shape[1]))) for x in (cpu, plugin))
    cos = (cpu * plugin).sum(1) / np.linalg.norm(cpu, axis=1) / np.linalg.norm(plugin, axis=1)
    assert cos.min() >= cosine, cos


@needs_device
def test_the_server_serves_on_the_plugin(cpu_vectors, tmp_path):
    from server_harness import Server

    root = tmp_path / "models"
    shutil.copytree(MODEL, root / "minilm")
    server = Server(root, "--provider", "openvino:precision=f32")
    try:
        status, _, body = server.post("/v1/embeddings", {"model": "minilm", "input": TEXTS.splitlines()})
        assert status == 200, body
        vectors = np.array([d["embedding"] for d in body["data"]], dtype=np.float64)
        cos = (vectors * cpu_vectors).sum(1) / np.linalg.norm(vectors, axis=1) / np.linalg.norm(cpu_vectors, axis=1)
        assert cos.min() >= 0.99999, cos
        assert "uses providers [openvino, cpu]" in server.output()
    finally:
        assert server.stop() == 0, server.output()


def test_tensorrt_rtx_is_listed_and_skipped_where_it_is_not_installed(cpu_vectors):
    """NVIDIA's TensorRT RTX plugin is not set up here: listed as not installed, skipped with the places
    searched, refused with --strict-providers."""
    env = {**os.environ, "SIEVE_EP_PATH": "/nonexistent"}
    version = subprocess.run([str(sieve_bin()), "--version"], capture_output=True, env=env, check=True)
    assert "tensorrt_rtx: unavailable (not installed" in version.stdout.decode(), version.stdout.decode()
    done = subprocess.run([str(sieve_bin()), "embed", "--model", str(MODEL), "--format", "jsonl", "--provider",
                           "tensorrt_rtx"], input=TEXTS.encode(), capture_output=True, env=env, timeout=300)
    err = done.stderr.decode()
    assert done.returncode == 0 and "execution provider tensorrt_rtx skipped" in err and "/nonexistent" in err, err
    strict = subprocess.run([str(sieve_bin()), "embed", "--model", str(MODEL), "--provider", "tensorrt_rtx",
                             "--strict-providers", "x"], capture_output=True, env=env, timeout=300)
    assert strict.returncode != 0 and 'execution provider "tensorrt_rtx" is unavailable' in strict.stderr.decode()
