#!/usr/bin/env bash
# Builds a container image from scratch holding a `sieve bundle` of MODEL (the program, every library it loads,
# glibc included, and the model), whose entry point is `sieve serve`, as an OCI image layout written by umoci
# (Debian's umoci; no container engine needed to build it). Load it with `skopeo copy oci:OUT:latest
# docker-daemon:sieve:latest` or `podman pull oci:OUT:latest`.
#   bash scripts/build_image.sh MODEL OUT
set -euo pipefail
model="${1:?usage: build_image.sh MODEL_FOLDER OUT_LAYOUT}"
out="${2:?usage: build_image.sh MODEL_FOLDER OUT_LAYOUT}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sieve="${SIEVE_BIN:-$root/build/sieve}"
command -v umoci >/dev/null || { echo "build_image: umoci is not installed (apt install umoci)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
name="$(basename "$(cd "$model" && pwd)")"
"$sieve" --log-level warn bundle --model "$model" --out "$work/bundle" --name "$name" >/dev/null
rm -rf "$out"
umoci init --layout "$out"
umoci new --image "$out:latest"
umoci unpack --image "$out:latest" "$work/unpacked" >/dev/null
rootfs="$work/unpacked/rootfs"
mkdir -p "$rootfs/opt/sieve" "$rootfs/tmp"
chmod 1777 "$rootfs/tmp"
cp -a "$work/bundle/." "$rootfs/opt/sieve/"
# What the bundle leaves to the system (glibc, libstdc++, the loader), from this machine, at the same paths.
LD_LIBRARY_PATH="$rootfs/opt/sieve/lib" ldd "$rootfs/opt/sieve/bin/sieve" |
  awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\/.*ld-linux/ {print $1}' |
  grep -v "^$rootfs" | while read -r lib; do cp --parents -L "$lib" "$rootfs/"; done
umoci repack --image "$out:latest" "$work/unpacked"
umoci config --image "$out:latest" --config.entrypoint /opt/sieve/bin/sieve --config.entrypoint serve \
  --config.cmd --models --config.cmd /opt/sieve/models --config.cmd --host --config.cmd 0.0.0.0 \
  --config.cmd --port --config.cmd 8080 --config.exposedports 8080/tcp --config.user 65534:65534 \
  --config.workingdir /opt/sieve --config.stopsignal SIGTERM \
  --config.label "org.opencontainers.image.title=sieve" --config.label "org.opencontainers.image.description=Sieve serving $name"
umoci gc --layout "$out"
echo "$out (image sieve serving $name: oci:$out:latest)"
