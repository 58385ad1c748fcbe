"""`sieve pull` against a mock hub (mock_hub.py) built from the fixture
model folders: downloads, variants, resumption, checksums, errors, tokens,
offline mode, atomic replacement, a full disk and a stalled server."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from conftest import ROOT, sieve_bin
from mock_hub import MockHub, wait_for

FIXTURES = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures"))
TINY = FIXTURES / "tiny-bert-tokens"
TINY_POOLED = FIXTURES / "tiny-bert-pooled"

pytestmark = pytest.mark.skipif(not (TINY / "model.onnx").exists(), reason=f"fixture models missing in {FIXTURES}")


def repo_files(folder: Path, onnx_name: str = "onnx/model.onnx") -> dict[str, bytes]:
    """A hub repository as sentence-transformers publishes one: the ONNX
    export under onnx/, weights in other formats beside it."""
    files = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.name != "reference.json":
            rel = p.relative_to(folder).as_posix()
            files[onnx_name if rel == "model.onnx" else rel] = p.read_bytes()
    files["model.safetensors"] = b"not for sieve" * 100
    files["pytorch_model.bin"] = b"not for sieve" * 100
    files["openvino/openvino_model.xml"] = b"<xml/>"
    files["README.md"] = b"# a model\n"
    return files


@pytest.fixture()
def hub():
    server = MockHub(cdn=True)
    yield server
    server.close()


@pytest.fixture()
def env(tmp_path, hub):
    """No token or hub settings of the machine's own: HOME is a scratch folder."""
    home = tmp_path / "home"
    home.mkdir()
    e = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING", "SIEVE_MODELS"))}
    e.update(HOME=str(home), HF_ENDPOINT=hub.url, SIEVE_PULL_TIMEOUT="5")
    return e


def pull(env, *args, check=True, timeout=120) -> subprocess.CompletedProcess:
    result = subprocess.run([str(sieve_bin()), "pull", *args], env=env, capture_output=True, text=True,
                            timeout=timeout)
    if check and result.returncode != 0:
        raise AssertionError(f"sieve pull {' '.join(args)} failed ({result.returncode}): {result.stderr}")
    return result


def error_line(result) -> str:
    # Exactly 1: the sanitizers exit otherwise (a leak on an error path shows up here).
    assert result.returncode == 1 and "Sanitizer" not in result.stderr, result.stderr
    lines = [l for l in result.stderr.splitlines() if l.startswith("sieve: error: ")]
    assert len(lines) == 1, result.stderr
    return lines[0]


def embed(folder: Path, text: str = "A cat sits on the mat.") -> str:
    result = subprocess.run([str(sieve_bin()), "--log-level", "warn", "embed", "--model", str(folder), text],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def assert_same_files(folder: Path, expected: dict[str, bytes]) -> None:
    got = {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*")
           if p.is_file() and p.name != ".sieve-pull.json"}
    assert sorted(got) == sorted(expected)
    for name, content in expected.items():
        assert got[name] == content, name


def expected_folder(files: dict[str, bytes], onnx: str = "onnx/model.onnx") -> dict[str, bytes]:
    keep = {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json", "modules.json",
            "sentence_bert_config.json", "1_Pooling/config.json"}
    out = {k: v for k, v in files.items() if k in keep}
    out["model.onnx"] = files[onnx]
    return out


def quantized(tmp_path: Path) -> bytes:
    from onnxruntime.quantization import QuantType, quantize_dynamic
    out = tmp_path / "model_q.onnx"
    quantize_dynamic(str(TINY / "model.onnx"), str(out), weight_type=QuantType.QInt8)
    return out.read_bytes()


def test_pull_fp32_is_byte_identical_and_embeds_the_same(hub, env, tmp_path):
    files = repo_files(TINY)
    commit = hub.add_commit("org/tiny", files)
    dest = tmp_path / "models"
    result = pull(env, "org/tiny", "--dest", str(dest))
    folder = dest / "tiny"
    assert result.stdout == f"{folder}\n"
    assert_same_files(folder, expected_folder(files))
    manifest = json.loads((folder / ".sieve-pull.json").read_text())
    assert manifest["commit"] == commit and manifest["variant"] == "fp32" and manifest["repo"] == "org/tiny"
    assert manifest["endpoint"] == hub.url
    assert not (dest / ".sieve-pull").exists()
    # Weights in other formats, openvino/ and the README were never asked for.
    asked = {r.path.split(f"/resolve/{commit}/")[-1] for r in hub.requests if "/resolve/" in r.path}
    assert asked == set(expected_folder(files)) - {"model.onnx"} | {"onnx/model.onnx"}
    assert embed(folder) == embed(TINY)


def test_pull_a_quantized_variant(hub, env, tmp_path):
    files = repo_files(TINY)
    files["onnx/model_qint8_avx512.onnx"] = quantized(tmp_path)
    hub.add_commit("org/tiny", files)
    dest = tmp_path / "models"
    result = pull(env, "org/tiny", "--variant", "qint8_avx512", "--dest", str(dest))
    folder = dest / "tiny-qint8_avx512"
    assert result.stdout.strip() == str(folder)
    assert_same_files(folder, expected_folder(files, "onnx/model_qint8_avx512.onnx"))
    source = tmp_path / "source"
    shutil.copytree(TINY, source)
    (source / "model.onnx").write_bytes(files["onnx/model_qint8_avx512.onnx"])
    assert embed(folder) == embed(source)
    assert hub.requests_for("onnx/model.onnx") == []


def test_external_data_lands_beside_model_onnx(hub, env, tmp_path):
    import onnx
    model = onnx.load(str(TINY / "model.onnx"))
    export = tmp_path / "export"
    export.mkdir()
    onnx.save_model(model, str(export / "model.onnx"), save_as_external_data=True, all_tensors_to_one_file=True,
                    location="model.onnx_data", size_threshold=1024)
    files = repo_files(TINY)
    files["onnx/model.onnx"] = (export / "model.onnx").read_bytes()
    files["onnx/model.onnx_data"] = (export / "model.onnx_data").read_bytes()
    hub.add_commit("org/external", files)
    folder = Path(pull(env, "org/external", "--dest", str(tmp_path / "models")).stdout.strip())
    assert (folder / "model.onnx_data").read_bytes() == files["onnx/model.onnx_data"]
    assert embed(folder) == embed(TINY)


def test_list_variants(hub, env, tmp_path):
    files = repo_files(TINY)
    files["onnx/model_qint8_avx512.onnx"] = b"q" * 2_000_000
    files["onnx/model_O4.onnx"] = b"o" * 3_000_000
    hub.add_commit("org/tiny", files)
    result = pull(env, "org/tiny", "--list-variants", "--dest", str(tmp_path / "models"))
    lines = result.stdout.splitlines()
    assert [l.split()[0] for l in lines] == ["fp32", "O4", "qint8_avx512"]
    assert "onnx/model_qint8_avx512.onnx" in lines[2] and "2.0 MB" in lines[2]
    assert not (tmp_path / "models").exists()
    assert not any("/resolve/" in r.path for r in hub.requests)
    unknown = error_line(pull(env, "org/tiny", "--variant", "int4", "--dest", str(tmp_path / "m"), check=False))
    assert 'no ONNX variant "int4"' in unknown and "available: fp32, O4, qint8_avx512" in unknown


def test_resume_after_a_cut_connection(hub, env, tmp_path):
    files = repo_files(TINY)
    hub.add_commit("org/tiny", files)
    cut = 1_500_000
    hub.faults.cut_after["onnx/model.onnx"] = cut
    result = pull(env, "org/tiny", "--dest", str(tmp_path / "models"))
    assert "retrying onnx/model.onnx from byte" in result.stderr
    cdn = [r for r in hub.requests if r.server == "cdn"]
    assert len(cdn) == 2
    assert "range" not in cdn[0].headers
    start = int(cdn[1].headers["range"].removeprefix("bytes=").rstrip("-"))
    assert 0 < start <= cut  # what had reached the disk was not fetched again
    assert_same_files(tmp_path / "models" / "tiny", expected_folder(files))


def test_a_part_left_by_an_earlier_run_is_resumed(hub, env, tmp_path):
    files = repo_files(TINY)
    commit = hub.add_commit("org/tiny", files)
    hub.faults.stall.add("tokenizer_config.json")  # the last file
    hub.faults.cut_after["tokenizer.json"] = 1000
    dest = tmp_path / "models"
    env = dict(env, SIEVE_PULL_TIMEOUT="1")
    first = pull(env, "org/tiny", "--dest", str(dest), check=False, timeout=60)
    assert "partial download is kept" in error_line(first)
    assert not (dest / "tiny").exists()
    staging = dest / ".sieve-pull" / f"org~tiny@{commit}@fp32"
    assert (staging / "tokenizer.json").exists()  # verified in the first run
    hub.faults.stall.clear()
    # Half a model.onnx left over instead, as if the first run had been killed.
    (staging / "model.onnx").unlink()
    (staging / "model.onnx.part").write_bytes(files["onnx/model.onnx"][:1_000_000])
    before = len(hub.requests_for("tokenizer.json"))
    pull(env, "org/tiny", "--dest", str(dest))
    assert len(hub.requests_for("tokenizer.json")) == before
    last = [r for r in hub.requests if r.server == "cdn"][-1]
    assert last.headers["range"] == "bytes=1000000-"
    assert_same_files(dest / "tiny", expected_folder(files))


def test_checksum_mismatch(hub, env, tmp_path):
    files = repo_files(TINY)
    commit = hub.add_commit("org/tiny", files)
    hub.faults.corrupt.add("onnx/model.onnx")
    dest = tmp_path / "models"
    line = error_line(pull(env, "org/tiny", "--dest", str(dest), check=False))
    assert "onnx/model.onnx" in line and "checksum mismatch" in line and "expected sha256" in line
    assert not (dest / "tiny").exists()
    staging = dest / ".sieve-pull" / f"org~tiny@{commit}@fp32"
    assert not (staging / "model.onnx.part").exists() and not (staging / "model.onnx").exists()
    # A git-stored file is checked against its blob id.
    hub.faults.corrupt = {"tokenizer.json"}
    line = error_line(pull(env, "org/tiny", "--dest", str(dest), check=False))
    assert "tokenizer.json" in line and "expected git blob sha1" in line
    hub.faults.corrupt = set()
    pull(env, "org/tiny", "--dest", str(dest))
    assert_same_files(dest / "tiny", expected_folder(files))


def test_not_found(hub, env, tmp_path):
    hub.add_commit("org/tiny", repo_files(TINY))
    dest = tmp_path / "models"
    line = error_line(pull(env, "org/nope", "--dest", str(dest), check=False))
    assert "repository org/nope on " + hub.url + " not found" in line
    line = error_line(pull(env, "org/tiny", "--revision", "v9", "--dest", str(dest), check=False))
    assert 'revision "v9" not found in org/tiny' in line
    hub.faults.missing.add("tokenizer.json")
    line = error_line(pull(env, "org/tiny", "--dest", str(dest), check=False))
    assert "tokenizer.json not found in org/tiny" in line
    assert not (dest / "tiny").exists() and not (dest / "nope").exists()


def test_revision_is_resolved_to_a_commit(hub, env, tmp_path):
    files = repo_files(TINY)
    old = hub.add_commit("org/tiny", files, ref="v1")
    hub.add_commit("org/tiny", repo_files(TINY_POOLED))
    folder = Path(pull(env, "org/tiny", "--revision", "v1", "--dest", str(tmp_path / "m")).stdout.strip())
    assert json.loads((folder / ".sieve-pull.json").read_text())["commit"] == old
    assert all(f"/resolve/{old}/" in r.path for r in hub.requests if "/resolve/" in r.path)
    assert_same_files(folder, expected_folder(files))


def test_repositories_without_onnx_or_tokenizer(hub, env, tmp_path):
    files = repo_files(TINY)
    del files["onnx/model.onnx"]
    hub.add_commit("org/weights-only", files)
    assert "sieve-export" in error_line(pull(env, "org/weights-only", "--dest", str(tmp_path), check=False))
    files = repo_files(TINY)
    del files["tokenizer.json"]
    hub.add_commit("org/no-tokenizer", files)
    assert "no tokenizer.json" in error_line(pull(env, "org/no-tokenizer", "--dest", str(tmp_path), check=False))


def test_gated_repository_and_tokens(hub, env, tmp_path):
    files = repo_files(TINY)
    hub.add_commit("org/gated", files, token="hf_right")
    dest = tmp_path / "models"
    line = error_line(pull(env, "org/gated", "--dest", str(dest), check=False))
    assert "gated" in line and "HF_TOKEN" in line
    line = error_line(pull(dict(env, HF_TOKEN="hf_wrong"), "org/gated", "--dest", str(dest), check=False))
    assert "refused the token" in line and "HF_TOKEN" in line
    assert "hf_wrong" not in line
    assert not (dest / "gated").exists()
    pull(dict(env, HF_TOKEN="hf_right"), "org/gated", "--dest", str(dest))
    assert_same_files(dest / "gated", expected_folder(files))
    # The token went to the hub, never to the CDN on the other port.
    hub_requests = [r for r in hub.requests if r.server == "hub"]
    assert hub_requests[-1].headers.get("authorization") == "Bearer hf_right"
    cdn = [r for r in hub.requests if r.server == "cdn"]
    assert cdn and all("authorization" not in r.headers for r in cdn)
    # The token file of `hf auth login` serves as well.
    (Path(env["HOME"]) / ".cache" / "huggingface").mkdir(parents=True)
    (Path(env["HOME"]) / ".cache" / "huggingface" / "token").write_text("hf_right\n")
    shutil.rmtree(dest)
    pull(env, "org/gated", "--dest", str(dest))


def test_offline_mode_makes_no_request(hub, env, tmp_path):
    files = repo_files(TINY)
    hub.add_commit("org/tiny", files)
    dest = tmp_path / "models"
    before = hub.count()
    line = error_line(pull(env, "org/tiny", "--offline", "--dest", str(dest), check=False))
    assert f"offline and org/tiny is not in {dest}" in line
    line = error_line(pull(dict(env, HF_HUB_OFFLINE="1"), "org/tiny", "--dest", str(dest), check=False))
    assert "offline and org/tiny is not in" in line
    assert hub.count() == before
    pull(env, "org/tiny", "--dest", str(dest))
    before = hub.count()
    result = pull(dict(env, HF_HUB_OFFLINE="1"), "org/tiny", "--dest", str(dest))
    assert result.stdout.strip() == str(dest / "tiny")
    result = pull(env, "org/tiny", "--offline", "--dest", str(dest))
    assert result.stdout.strip() == str(dest / "tiny")
    assert hub.count() == before
    # A damaged folder is reported, still without the network.
    (dest / "tiny" / "tokenizer.json").write_text("{}")
    assert "incomplete" in error_line(pull(env, "org/tiny", "--offline", "--dest", str(dest), check=False))
    assert hub.count() == before


def test_second_pull_is_up_to_date(hub, env, tmp_path):
    hub.add_commit("org/tiny", repo_files(TINY))
    dest = tmp_path / "models"
    pull(env, "org/tiny", "--dest", str(dest))
    before = hub.count()
    result = pull(env, "org/tiny", "--dest", str(dest))
    assert "up to date" in result.stderr
    assert result.stdout.strip() == str(dest / "tiny")
    new = hub.requests[before:]
    assert len(new) == 1 and "/api/models/" in new[0].path


def test_name_and_default_destination(hub, env, tmp_path):
    hub.add_commit("org/tiny", repo_files(TINY))
    result = pull(dict(env, SIEVE_MODELS=str(tmp_path / "root")), "org/tiny", "--name", "mine/tiny")
    assert result.stdout.strip() == str(tmp_path / "root" / "mine" / "tiny")
    result = pull(env, "org/tiny", "--quiet")
    assert result.stdout.strip() == str(Path(env["HOME"]) / ".cache" / "sieve" / "models" / "tiny")
    assert result.stderr == ""
    # A folder sieve pull did not make is never replaced.
    (tmp_path / "root" / "mine" / "other").mkdir(parents=True)
    line = error_line(pull(env, "org/tiny", "--dest", str(tmp_path / "root"), "--name", "mine/other", check=False))
    assert "was not made by sieve pull" in line


def test_new_commit_replaces_the_folder_atomically(hub, env, tmp_path):
    old_files = repo_files(TINY)
    hub.add_commit("org/tiny", old_files)
    dest = tmp_path / "models"
    pull(env, "org/tiny", "--dest", str(dest))
    folder = dest / "tiny"
    old_commit = json.loads((folder / ".sieve-pull.json").read_text())["commit"]
    new_files = repo_files(TINY_POOLED)
    new_commit = hub.add_commit("org/tiny", new_files)
    import threading
    hub.faults.hold["onnx/model.onnx"] = threading.Event()
    proc = subprocess.Popen([str(sieve_bin()), "pull", "org/tiny", "--dest", str(dest)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert wait_for(lambda: "onnx/model.onnx" in hub.faults.halfway)
        # Mid-pull: the old folder is whole and still the old commit.
        assert json.loads((folder / ".sieve-pull.json").read_text())["commit"] == old_commit
        assert_same_files(folder, expected_folder(old_files))
        assert embed(folder) == embed(TINY)
    finally:
        hub.faults.hold["onnx/model.onnx"].set()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert json.loads((folder / ".sieve-pull.json").read_text())["commit"] == new_commit
    assert_same_files(folder, expected_folder(new_files))
    assert sorted(p.name for p in dest.iterdir()) == ["tiny"]


def unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "--mount", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not unshare_works(), reason="unshare --mount is not permitted here")
def test_disk_full(hub, env, tmp_path):
    files = repo_files(TINY)
    hub.add_commit("org/tiny", files)
    dest = tmp_path / "small"
    dest.mkdir()
    script = (f'mount -t tmpfs -o size=2m tmpfs "{dest}" && "{sieve_bin()}" pull org/tiny --dest "{dest}"; '
              f'rc=$?; ls -A "{dest}" > "{tmp_path}/listing"; ls -A "{dest}/org" >> "{tmp_path}/listing" 2>&1; exit $rc')
    result = subprocess.run(["unshare", "--mount", "sh", "-c", script], env=env, capture_output=True, text=True,
                            timeout=120)
    line = error_line(result)
    assert "No space left on device" in line and str(dest) in line and "onnx/model.onnx" in line
    listing = (tmp_path / "listing").read_text().split()
    assert "tiny" not in listing  # no model folder, not even a partial one


def test_stalled_server_times_out(hub, env, tmp_path):
    hub.add_commit("org/tiny", repo_files(TINY))
    hub.faults.stall.add("onnx/model.onnx")
    started = time.monotonic()
    result = pull(dict(env, SIEVE_PULL_TIMEOUT="1"), "org/tiny", "--dest", str(tmp_path / "m"), check=False,
                  timeout=60)
    elapsed = time.monotonic() - started
    line = error_line(result)
    assert "onnx/model.onnx" in line or "model.onnx" in line
    assert "too slow" in line.lower() or "timed out" in line.lower() or "timeout" in line.lower()
    assert "gave up after 3 retries" in line
    assert elapsed < 30
    assert not (tmp_path / "m" / "tiny").exists()


def test_huggingface_hub_downloads_from_the_mock(hub, env, tmp_path):
    """The mock speaks the hub's protocol: huggingface_hub itself can use it."""
    files = repo_files(TINY)
    hub.add_commit("org/tiny", files)
    script = ("import sys\nfrom huggingface_hub import snapshot_download\n"
              "print(snapshot_download('org/tiny', cache_dir=sys.argv[1], endpoint=sys.argv[2]))\n")
    result = subprocess.run([str(ROOT / ".venv" / "bin" / "python"), "-c", script, str(tmp_path / "cache"), hub.url],
                            env=dict(env, HF_HUB_DISABLE_TELEMETRY="1"), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    snapshot = Path(result.stdout.strip().splitlines()[-1])
    for name, content in files.items():
        assert (snapshot / name).read_bytes() == content, name


# ---- a hostile hub: sizes that lie, files it cannot vouch for, escape sequences

def test_a_stream_longer_than_announced_is_cut_off(hub, env, tmp_path):
    """The hub lists tokenizer.json at its size, the server sends 64 MB more:
    the pull stops at the first byte too many (or at a Content-Length that
    says so) instead of writing the whole stream, and fails that file."""
    files = repo_files(TINY)
    commit = hub.add_commit("org/tiny", files)
    extra = 64 * 1024 * 1024
    hub.faults.oversize["tokenizer.json"] = extra
    dest = tmp_path / "models"
    size = len(files["tokenizer.json"])
    line = error_line(pull(env, "org/tiny", "--dest", str(dest), check=False))
    # A Content-Length past the announced size: refused before a byte is written.
    assert f"tokenizer.json: the hub announced {size} bytes, but the server sent {size + extra} bytes" in line
    staging = dest / ".sieve-pull" / f"org~tiny@{commit}@fp32"
    assert not (staging / "tokenizer.json.part").exists() and not (staging / "tokenizer.json").exists()
    assert hub.sent.get("tokenizer.json", 0) < extra // 4
    # Without a length the bytes are counted as they come.
    hub.faults.no_length.add("tokenizer.json")
    hub.sent.clear()
    line = error_line(pull(env, "org/tiny", "--dest", str(dest), check=False))
    assert f"tokenizer.json: the hub announced {size} bytes, but the server sent more (" in line
    assert "stopped and deleted" in line
    assert not (staging / "tokenizer.json.part").exists()
    assert hub.sent.get("tokenizer.json", 0) < extra // 4
    assert not (dest / "tiny").exists()
    # Nor are the headers read without end.
    hub.faults.header_flood["tokenizer.json"] = 8 * 1024 * 1024
    line = error_line(pull(env, "org/tiny", "--dest", str(dest), check=False))
    assert "tokenizer.json" in line and "the response's headers are larger than 256 KiB" in line
    hub.faults.header_flood.clear()
    # An honest stream afterwards installs the file.
    hub.faults.oversize.clear()
    pull(env, "org/tiny", "--dest", str(dest))
    assert_same_files(dest / "tiny", expected_folder(files))


def test_files_without_size_or_checksum_need_allow_unverified(hub, env, tmp_path):
    files = repo_files(TINY)
    hub.add_commit("org/tiny", files)
    hub.faults.listing["tokenizer.json"] = {"size": None}
    hub.faults.listing["onnx/model.onnx"] = {"lfs": None, "blobId": None}
    dest = tmp_path / "models"
    line = error_line(pull(env, "org/tiny", "--dest", str(dest), check=False))
    assert "onnx/model.onnx (no checksum)" in line and "tokenizer.json (no size)" in line
    assert "--allow-unverified" in line and "nothing was downloaded" in line
    assert not any("/resolve/" in r.path for r in hub.requests)
    # Allowed: installed, each file named in a warning that --quiet does not silence.
    result = pull(env, "org/tiny", "--dest", str(dest), "--allow-unverified", "--quiet")
    warnings = [l for l in result.stderr.splitlines() if l.startswith("sieve: warning: ")]
    assert len(warnings) == 2, result.stderr
    assert any(w.startswith("sieve: warning: onnx/model.onnx: the hub lists no checksum") and "UNVERIFIED" in w
               for w in warnings)
    assert any(w.startswith("sieve: warning: tokenizer.json: the hub lists no size") for w in warnings)
    assert_same_files(dest / "tiny", expected_folder(files))


def assert_escaped(text: str) -> None:
    assert "\x1b" not in text and "\r" not in text and "\x08" not in text, repr(text)


def test_control_characters_from_the_hub_are_escaped(hub, env, tmp_path):
    hostile = "\x1b[31mred\r\x08"
    files = repo_files(TINY)
    files[f"onnx/model_{hostile}.onnx"] = b"x" * 1000
    hub.add_commit("org/tiny", files)
    dest = tmp_path / "models"
    # Variant names in the listing and in an error.
    result = pull(env, "org/tiny", "--list-variants", "--dest", str(dest))
    assert_escaped(result.stdout)
    assert "\\x1b[31mred\\r\\b" in result.stdout
    result = pull(env, "org/tiny", "--variant", "nope", "--dest", str(dest), check=False)
    assert_escaped(result.stderr)
    assert "available: fp32, \\x1b[31mred\\r\\b" in error_line(result)
    # A message in the error body only.
    hub.faults.error_body["tokenizer.json"] = f"gone {hostile}"
    result = pull(env, "org/tiny", "--dest", str(dest), check=False)
    assert_escaped(result.stderr)
    assert "(the hub says: gone \\x1b[31mred\\r\\b)" in error_line(result)
    hub.faults.error_body.clear()
    # A file the pull would write, named with an escape sequence: refused by name.
    files = repo_files(TINY)
    files[f"onnx/model.onnx_data{hostile}"] = b"d" * 100
    hub.add_commit("org/data", files)
    result = pull(env, "org/data", "--dest", str(dest), check=False)
    assert_escaped(result.stderr)
    assert 'unsafe file name "onnx/model.onnx_data\\x1b[31mred\\r\\b"' in error_line(result)


def test_served_by_name_by_repository_and_through_links(hub, env, tmp_path):
    """`sieve pull` saves DEST/NAME and `sieve serve` answers to NAME and to the repository id; a model folder
    linked from elsewhere, and Hugging Face's cache layout (snapshots of links into blobs/), are served too."""
    from server_harness import Server
    hub.add_commit("org/tiny", repo_files(TINY))
    dest = tmp_path / "models"
    assert pull(env, "org/tiny", "--dest", str(dest)).stdout.strip() == str(dest / "tiny")
    (dest / "linked").symlink_to(TINY_POOLED.resolve())  # a model folder outside the root
    cache = dest / "hub" / "models--hf--cached"
    snapshot = cache / "snapshots" / "c0ffee"
    (snapshot / "onnx").mkdir(parents=True)
    (cache / "blobs").mkdir()
    (cache / "refs").mkdir()
    (cache / "refs" / "main").write_text("c0ffee")
    for n, f in enumerate(p for p in sorted(TINY.rglob("*")) if p.is_file()):
        blob = cache / "blobs" / f"{n:04x}"
        shutil.copy(f, blob)
        relative = f.relative_to(TINY)
        place = snapshot / "onnx" / "model.onnx" if relative.as_posix() == "model.onnx" else snapshot / relative
        place.parent.mkdir(parents=True, exist_ok=True)
        place.symlink_to(os.path.relpath(blob, place.parent))
    server = Server(dest)
    try:
        status, _, body = server.get("/v1/models")
        assert status == 200 and sorted(m["id"] for m in body["data"]) == ["hub/hf/cached", "linked", "tiny"], body
        vectors = {}
        for name in ("tiny", "org/tiny", "linked", "hub/hf/cached"):
            status, _, body = server.post("/v1/embeddings", {"model": name, "input": "A cat sits on the mat."})
            assert status == 200, (name, body)
            vectors[name] = body["data"][0]["embedding"]
        assert vectors["tiny"] == vectors["org/tiny"] == vectors["hub/hf/cached"]
        assert vectors["linked"] != vectors["tiny"]  # another fixture (mean pooling)
        status, _, body = server.post("/v1/embeddings", {"model": "org/tinny", "input": "x"})
        assert status == 404 and "did you mean `org/tiny`?" in body["error"]["message"], body
    finally:
        assert server.stop() == 0
