"""`sieve bundle`: a folder with the binary, libsieve.so, ONNX Runtime, the
other shared libraries and a model, which runs from anywhere with an empty
environment. The bundle is moved after it is made (and the original deleted),
so nothing can lean on where it was built; the strongest check runs it in a
freshly debootstrapped minimal Debian 12 root (SIEVE_DEBIAN_ROOT, which
scripts/test.sh makes with scripts/make_debian_root.sh)."""
from __future__ import annotations

import filecmp
import json
import os
import re
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from conftest import MODEL, ROOT, run_sieve, sieve_bin
from server_harness import models_root

TEXTS = ["A cat sits on the mat.", "Offline embeddings, shipped as one folder."]
SYSTEM_RUNTIME = re.compile(r"^(ld-linux|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|libresolv\.so|"
                            r"libstdc\+\+\.so|libgcc_s\.so|linux-vdso)")


def embed_reference() -> list[list[float]]:
    out = run_sieve("embed", "--model", str(MODEL), "--format", "json", *TEXTS).stdout
    return json.loads(out)


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    """Made from a model folder of symbolic links, as Hugging Face's cache
    keeps one: the bundle must hold the files, not links out of it."""
    links = models_root(tmp_path_factory.mktemp("links"), {"all-MiniLM-L6-v2": MODEL}) / "all-MiniLM-L6-v2"
    assert (links / "model.onnx").is_symlink()
    made = tmp_path_factory.mktemp("made") / "bundle"
    result = run_sieve("bundle", "--model", str(links), "--out", str(made))
    assert result.stdout.decode().strip() == str(made)
    moved = tmp_path_factory.mktemp("elsewhere") / "sieve-app"
    shutil.copytree(made, moved, symlinks=True)
    shutil.rmtree(made)
    return moved


def run_bundled(bundle: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(bundle / "bin" / "sieve"), "--log-level", "warn", *args], env=env or {},
                          capture_output=True, timeout=300)


def test_layout_and_model_copy(bundle: Path):
    assert (bundle / "bin" / "sieve").is_file() and os.access(bundle / "bin" / "sieve", os.X_OK)
    libs = {p.name for p in (bundle / "lib").iterdir()}
    assert "libonnxruntime.so.1" in libs
    assert "libsieve.so.0" in libs and os.readlink(bundle / "lib" / "libsieve.so") == "libsieve.so.0"
    assert (bundle / "include" / "sieve.h").is_file()
    assert (bundle / "licenses" / "onnxruntime").is_dir() or not (ROOT / ".deps/onnxruntime/LICENSE").exists()
    assert not any(SYSTEM_RUNTIME.match(name) for name in libs), libs
    assert not any(p.is_symlink() for p in (bundle / "models" / MODEL.name).rglob("*"))
    comparison = filecmp.dircmp(MODEL, bundle / "models" / MODEL.name)
    assert not comparison.left_only and not comparison.diff_files, comparison.report()
    assert (bundle / "README.txt").read_text().count("bin/sieve embed") == 1


def test_runs_with_an_empty_environment(bundle: Path):
    result = run_bundled(bundle, "embed", "--model", str(bundle / "models" / MODEL.name), "--format", "json", *TEXTS)
    assert result.returncode == 0, result.stderr.decode()
    assert json.loads(result.stdout) == embed_reference()


def test_every_library_resolves_inside_the_bundle(bundle: Path):
    # The loader's own account (what ldd prints), in an otherwise empty environment.
    traced = run_bundled(bundle, env={"LD_TRACE_LOADED_OBJECTS": "1"})
    listing = traced.stdout.decode()
    assert "not found" not in listing, listing
    resolved = re.findall(r"^\s*(\S+) => (\S+)", listing, re.M)
    assert len(resolved) > 5, listing
    for name, path in resolved:
        if SYSTEM_RUNTIME.match(name):
            continue
        assert Path(path).resolve().is_relative_to(bundle.resolve()), f"{name} resolved to {path}"
    # libsieve.so for C programs: ld.so lists a shared library's closure too.
    loader = next(Path(p) for p in ("/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1") if Path(p).exists())
    lib_listing = subprocess.run([str(loader), "--list", str(bundle / "lib" / "libsieve.so.0")], env={},
                                 capture_output=True, text=True, timeout=60).stdout
    assert "not found" not in lib_listing and "libonnxruntime.so.1 => " + str(bundle) in lib_listing, lib_listing


def test_rpaths_are_origin_relative(bundle: Path):
    def dynamic(path: Path) -> str:
        return subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True, check=True).stdout

    program = dynamic(bundle / "bin" / "sieve")
    assert "(RPATH)              Library rpath: [$ORIGIN/../lib]" in program, program
    assert "RUNPATH" not in program
    assert "(RPATH)              Library rpath: [$ORIGIN]" in dynamic(bundle / "lib" / "libsieve.so.0")
    # The build machine's paths are gone from what the loader reads.
    assert str(ROOT) not in program


def test_c_program_links_against_the_bundle(bundle: Path, tmp_path: Path):
    source = tmp_path / "embed.c"
    source.write_text(r'''
#include <stdio.h>
#include <string.h>
#include "sieve.h"
int main(int argc, char** argv) {
  sieve_model* model = NULL;
  sieve_model_options options;
  sieve_model_options_init(&options, sizeof options);
  sieve_status* status = sieve_model_load(argv[1], &options, &model);
  if (status) { fprintf(stderr, "%s\n", sieve_status_message(status)); return 1; }
  sieve_text text = {argv[2], strlen(argv[2])};
  size_t floats = 0;
  sieve_embed_size(model, 1, &floats);
  float vector[4096];
  status = sieve_embed(model, &text, 1, vector, sizeof vector / sizeof vector[0]);
  if (status) { fprintf(stderr, "%s\n", sieve_status_message(status)); return 1; }
  printf("%zu %.6f\n", floats, vector[0]);
  sieve_model_destroy(model);
  return 0;
}
''')
    program = bundle / "bin" / "embed-c"
    subprocess.run(["cc", "-std=c99", "-Wall", "-Werror", "-I", str(bundle / "include"), str(source), "-o",
                    str(program), "-L", str(bundle / "lib"), "-lsieve", "-Wl,--disable-new-dtags",
                    "-Wl,-rpath,$ORIGIN/../lib"], check=True, capture_output=True)
    try:
        result = subprocess.run([str(program), str(bundle / "models" / MODEL.name), TEXTS[0]], env={},
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        floats, first = result.stdout.split()
        assert int(floats) == 384
        assert abs(float(first) - embed_reference()[0][0]) < 1e-6
    finally:
        program.unlink()


def test_runs_in_a_minimal_debian_12_root(bundle: Path):
    root_dir = os.environ.get("SIEVE_DEBIAN_ROOT")
    if not root_dir:
        pytest.skip("SIEVE_DEBIAN_ROOT is not set (scripts/test.sh makes one with scripts/make_debian_root.sh)")
    root = Path(root_dir)
    assert (root / ".sieve-debian-root").is_file(), f"{root} is not a root made by scripts/make_debian_root.sh"
    # Nothing of what the bundle carries is installed there.
    assert not list((root / "usr/lib").rglob("libcurl.so*")) and not list((root / "usr/lib").rglob("libonnxruntime*"))
    inside = Path("/tmp") / f"sieve-bundle-{uuid.uuid4().hex[:8]}"
    shutil.copytree(bundle, root / inside.relative_to("/"), symlinks=True)
    try:
        # A private mount namespace, so the /proc that ONNX Runtime reads is
        # mounted for this run only.
        script = (f'mount -t proc proc "{root}/proc" && exec chroot "{root}" /usr/bin/env -i '
                  f'{inside}/bin/sieve --log-level warn embed --model {inside}/models/{MODEL.name} --format json '
                  + " ".join(f"'{t}'" for t in TEXTS))
        result = subprocess.run(["unshare", "--mount", "--fork", "sh", "-c", script], capture_output=True,
                                timeout=300)
        assert result.returncode == 0, result.stderr.decode()
        assert json.loads(result.stdout) == embed_reference()
    finally:
        shutil.rmtree(root / inside.relative_to("/"))


def test_errors_name_what_is_wrong(tmp_path: Path):
    missing = run_sieve("bundle", "--model", str(tmp_path / "nope"), "--out", str(tmp_path / "b"), check=False)
    assert missing.returncode != 0 and str(tmp_path / "nope") in missing.stderr.decode()
    not_model = tmp_path / "plain"
    not_model.mkdir()
    (not_model / "notes.txt").write_text("hello")
    result = run_sieve("bundle", "--model", str(not_model), "--out", str(tmp_path / "b"), check=False)
    assert result.returncode != 0 and "plain" in result.stderr.decode()
    assert not (tmp_path / "b").exists()
    assert not [p for p in tmp_path.iterdir() if ".partial" in p.name]


def test_existing_output_needs_force_and_is_swapped_whole(tmp_path: Path):
    out = tmp_path / "app"
    out.mkdir()
    (out / "old.txt").write_text("old bundle")
    refused = run_sieve("bundle", "--model", str(MODEL), "--out", str(out), check=False)
    assert refused.returncode != 0 and "--force" in refused.stderr.decode()
    assert (out / "old.txt").read_text() == "old bundle"
    run_sieve("bundle", "--model", str(MODEL), "--out", str(out), "--force", "--name", "minilm")
    assert not (out / "old.txt").exists()
    assert (out / "models" / "minilm" / "tokenizer.json").is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["app"]
