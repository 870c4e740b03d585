#!/usr/bin/env bash
# Packs this machine's FFmpeg libraries (Debian 12's libavformat59, libavcodec59, libswscale6, libavutil57,
# libswresample4: what satlab opens at run time for clips) with every shared library they load, for a
# machine without them (the GPU machine: `tools/device.sh video AV_TAR`):
#   tools/pack_av.sh OUT.tar.xz
# There: tar -xJf OUT.tar.xz -C DIR --strip-components=1; LD_LIBRARY_PATH=DIR satlab ... The C and C++
# runtimes and zlib are left out (the other machine's are used). About 48 MB at xz -9e.
set -euo pipefail
out=${1:?usage: tools/pack_av.sh OUT.tar.xz}
lib=/usr/lib/x86_64-linux-gnu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/av"
for l in libavcodec.so.59 libavformat.so.59 libswscale.so.6 libavutil.so.57 libswresample.so.4; do
  [ -e "$lib/$l" ] || { echo "$lib/$l is missing (apt-get install libavformat59 libavcodec59 libswscale6)" >&2; exit 1; }
  echo "$lib/$l"
  ldd "$lib/$l" | awk '$3 ~ /^\// {print $3}'
done | sort -u | grep -v -E '/(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s|libz)\.so|/ld-linux' |
  while read -r f; do cp -L "$f" "$dir/av/"; done
tar -cf - -C "$dir" av | xz -9e -T0 >"$out"
echo "$out: $(ls "$dir/av" | wc -l) libraries, $(du -h "$out" | cut -f1)"
