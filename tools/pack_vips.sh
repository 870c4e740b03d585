#!/usr/bin/env bash
# Packs this machine's libvips command line (Debian's libvips-tools, the benchmark anchor of
# `satlab bench stream`; never a dependency of satlab) with the shared libraries it loads, and
# /usr/bin/time, into one tarball for a machine that has neither (the GPU machine), so that libvips runs
# there on the same files as satlab:
#   tools/pack_vips.sh OUT.tar.xz
# There: tar -xJf OUT.tar.xz -C DIR; LD_LIBRARY_PATH=DIR DIR/vips convsep ... (DIR/time where
# /usr/bin/time is missing). The C library's own objects (libc, libm, libpthread, libdl, librt, the loader)
# are left out: the other machine's are used.
set -euo pipefail
out=${1:?usage: tools/pack_vips.sh OUT.tar.xz}
command -v vips >/dev/null || { echo "vips is not installed (Debian package libvips-tools)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed (Debian package time)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$(command -v vips)" /usr/bin/time "$dir/"
ldd "$(command -v vips)" | awk '$3 ~ /^\// {print $3}' |
  grep -v -E '/(libc|libm|libpthread|libdl|librt)\.so|/ld-linux' |
  while read -r lib; do cp -L "$lib" "$dir/"; done
strip --strip-unneeded "$dir"/*.so* "$dir/vips" 2>/dev/null || true
tar -cJf "$out" -C "$dir" .
echo "$out: $(vips --version) and $(ls "$dir" | grep -c '\.so') libraries, $(du -h "$out" | cut -f1)"
