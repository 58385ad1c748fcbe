"""What a server team installs, installed as they would: the Debian packages (scripts/build_deb.sh, CPack)
installed with dpkg -i into a minimal Debian 12 root (SIEVE_DEBIAN_ROOT, scripts/make_debian_root.sh; the
dependencies fetched by apt-get -f install, as after any dpkg -i), and run there; the container image from scratch
(scripts/build_image.sh: a `sieve bundle` in an OCI layout by umoci), checked by skopeo and its entry point run
in its own root file system; the systemd unit, checked by systemd-analyze verify. Root file systems are used
through an overlay in a private mount namespace, so the shared minimal root stays as it was."""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import ROOT, run_sieve, sieve_bin

FIXTURES = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures"))
TINY = FIXTURES / "tiny-bert-tokens"
TEXT = "A cat sits on the mat."
is_root = os.geteuid() == 0


def host_vector() -> list[float]:
    return json.loads(run_sieve("embed", "--model", str(TINY), "--format", "json", TEXT).stdout)[0]


def in_overlay(lower: Path, tmp: Path, script: str, timeout: int = 600) -> subprocess.CompletedProcess:
    """Runs `script` (sh) in a private mount namespace where $M is an overlay of `lower` with /proc mounted."""
    for d in ("upper", "work", "merged"):
        (tmp / d).mkdir(exist_ok=True)
    setup = (f'set -e; M="{tmp}/merged"; mount -t overlay overlay -o lowerdir="{lower}",upperdir="{tmp}/upper",'
             f'workdir="{tmp}/work" "$M"; mkdir -p "$M/proc"; mount -t proc proc "$M/proc"; ')
    return subprocess.run(["unshare", "--mount", "--fork", "sh", "-c", setup + script], capture_output=True,
                          text=True, timeout=timeout)


@pytest.mark.skipif(not is_root or not shutil.which("cpack"), reason="needs root (chroot) and CPack")
def test_debian_packages_install_with_dpkg_and_run_in_a_minimal_debian_12_root(tmp_path):
    root_dir = os.environ.get("SIEVE_DEBIAN_ROOT")
    if not root_dir:
        pytest.skip("SIEVE_DEBIAN_ROOT is not set (scripts/test.sh makes one with scripts/make_debian_root.sh)")
    out = tmp_path / "debs"
    subprocess.run(["bash", str(ROOT / "scripts" / "build_deb.sh"), str(out)], check=True, capture_output=True,
                   timeout=600)
    server, dev = sorted(out.glob("sieve_*.deb"))[0], sorted(out.glob("libsieve-dev_*.deb"))[0]
    fields = lambda deb, f: subprocess.run(["dpkg-deb", "-f", str(deb), f], capture_output=True, text=True,
                                           check=True).stdout.strip()
    assert fields(server, "Package") == "sieve" and fields(dev, "Package") == "libsieve-dev"
    assert "libcurl4" in fields(server, "Depends") and fields(dev, "Depends").startswith("sieve (= ")
    files = lambda deb: subprocess.run(["dpkg-deb", "-c", str(deb)], capture_output=True, text=True,
                                       check=True).stdout
    assert all(f in files(server) for f in ("./usr/bin/sieve", "./usr/lib/libsieve.so.0", "./usr/lib/sieve/libonnxruntime.so",
                                            "./usr/lib/systemd/system/sieve.service"))
    assert all(f in files(dev) for f in ("./usr/include/sieve.h", "./usr/lib/libsieve.a", "./usr/lib/pkgconfig/sieve.pc",
                                         "./usr/lib/cmake/sieve/sieveConfig.cmake"))
    model = tmp_path / "model"
    shutil.copytree(TINY, model)
    chroot = 'chroot "$M" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive'
    script = (f'cp /etc/resolv.conf "$M/etc/resolv.conf"; mkdir -p "$M/tmp/in"; cp "{server}" "{dev}" "$M/tmp/in/"; '
              f'cp -r "{model}" "$M/tmp/in/model"; '
              # dpkg -i stops at the missing dependencies; apt-get -f install fetches them and finishes.
              f'{chroot} dpkg -i /tmp/in/{server.name} /tmp/in/{dev.name} >/dev/null 2>&1 || true; '
              f'{chroot} apt-get -f install -y -q --no-install-recommends >/dev/null; '
              f"{chroot} dpkg-query -W -f '${{Status}}\\n' sieve libsieve-dev; "
              f'{chroot} sieve --version | head -1; '
              f'{chroot} sieve --log-level warn embed --model /tmp/in/model "{TEXT}"; '
              f'test -f "$M/usr/lib/pkgconfig/sieve.pc" && test -f "$M/usr/include/sieve.h" && echo dev-files')
    result = in_overlay(Path(root_dir), tmp_path, script)
    assert result.returncode == 0, result.stderr[-4000:]
    lines = result.stdout.splitlines()
    assert lines[:2] == ["install ok installed"] * 2, result.stdout
    assert lines[2].startswith("sieve ") and lines[-1] == "dev-files", result.stdout
    assert json.loads(lines[3]) == pytest.approx(host_vector(), abs=1e-6)


def test_systemd_unit_verifies(tmp_path):
    """The unit docs/install.md enables (systemctl enable --now sieve), as systemd reads it."""
    if not shutil.which("systemd-analyze"):
        pytest.skip("systemd-analyze is not installed")
    unit = (ROOT / "deploy" / "systemd" / "sieve.service").read_text()
    assert "ExecStart=/usr/bin/sieve serve --models /var/lib/sieve/models" in unit and "KillSignal=SIGTERM" in unit
    # As installed, but with the program of this build at the path the unit names.
    (tmp_path / "sieve.service").write_text(unit.replace("/usr/bin/sieve", str(sieve_bin().resolve())))
    result = subprocess.run(["systemd-analyze", "verify", str(tmp_path / "sieve.service")], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0 and not result.stderr.strip(), result.stderr


@pytest.mark.skipif(not is_root or not shutil.which("umoci") or not shutil.which("skopeo"),
                    reason="needs root (chroot), umoci and skopeo (scripts/bootstrap.sh installs them)")
def test_container_image_from_scratch_serves(tmp_path):
    layout = tmp_path / "image"
    subprocess.run(["bash", str(ROOT / "scripts" / "build_image.sh"), str(TINY), str(layout)], check=True,
                   capture_output=True, timeout=600)
    inspect = json.loads(subprocess.run(["skopeo", "inspect", f"oci:{layout}:latest"], capture_output=True,
                                        text=True, check=True).stdout)
    assert inspect["Os"] == "linux" and inspect["Architecture"] == "amd64" and len(inspect["Layers"]) == 1
    config = json.loads(subprocess.run(["skopeo", "inspect", "--config", f"oci:{layout}:latest"], capture_output=True,
                                       text=True, check=True).stdout)["config"]
    assert config["Entrypoint"] == ["/opt/sieve/bin/sieve", "serve"] and config["User"] == "65534:65534"
    # Its root file system, unpacked as a runtime would, and nothing else: the entry point runs there as its user.
    subprocess.run(["umoci", "unpack", "--image", f"{layout}:latest", str(tmp_path / "bundle")], check=True,
                   capture_output=True, timeout=300)
    rootfs = tmp_path / "bundle" / "rootfs"
    assert {p.name for p in rootfs.iterdir()} <= {"etc", "lib", "lib64", "opt", "tmp", "usr"}
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    args = [*config["Entrypoint"], *config["Cmd"]]
    args[args.index("--host") + 1], args[args.index("--port") + 1] = "127.0.0.1", str(port)
    command = (f'mount -t proc proc "{rootfs}/proc" 2>/dev/null || (mkdir -p "{rootfs}/proc" && mount -t proc proc '
               f'"{rootfs}/proc"); exec env -i "$(command -v chroot)" --userspec={config["User"]} "{rootfs}" ' + " ".join(args))
    process = subprocess.Popen(["unshare", "--mount", "--fork", "sh", "-c", command], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, process.stdout.read().decode()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2):
                    break
            except OSError:
                assert time.monotonic() < deadline, "the image's server did not answer"
                time.sleep(0.2)
        request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/embeddings", method="POST",
                                         data=json.dumps({"input": [TEXT]}).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            vector = json.loads(response.read())["data"][0]["embedding"]
        assert vector == pytest.approx(host_vector(), abs=1e-6)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
    # SIGTERM drains and exits cleanly.
    assert process.wait(timeout=60) == 0, process.stdout.read().decode()
