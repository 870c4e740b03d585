#!/usr/bin/env bash
# Packs this machine's FFmpeg libraries (Debian 12's libavformat59, libavcodec59, libswscale6, libavutil57,
# libswresample4: what satlab opens at run time for clips) with the shared libraries they load, for a
# machine without them (the GPU machine: `tools/device.sh video AV_TAR`):
#   tools/pack_av.sh OUT.tar.xz                      every library they load (about 48 MB at xz -9e)
#   tools/pack_av.sh OUT.tar.xz --device-libs LIST   the other machine's libraries named in LIST (its
#       `ldconfig -p`, or one name a line; the GPU machine's: tools/gpu-machine-libs.txt) left out; of the rest, FFmpeg's own, the H.264 and HEVC encoders
#       and the demuxers' probes (openmpt, gme) with what they load, and every other library a stand-in
#       (tools/stub_so.py: the symbols without the code; their codecs and protocols are never opened):
#       about 9 MB, so that it travels with the binaries within the GPU machine's 64 MiB
# There: tar -xJf OUT.tar.xz -C DIR --strip-components=1; LD_LIBRARY_PATH=DIR satlab ... The C and C++
# runtimes and zlib are left out (the other machine's are used).
set -euo pipefail
out=${1:?usage: tools/pack_av.sh OUT.tar.xz [--device-libs LIST]}
list=
[ "${2:-}" = --device-libs ] && list=${3:?--device-libs LIST}
lib=/usr/lib/x86_64-linux-gnu
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/av"
roots="libavcodec.so.59 libavformat.so.59 libswscale.so.6 libavutil.so.57 libswresample.so.4"
for l in $roots; do
  [ -e "$lib/$l" ] || { echo "$lib/$l is missing (apt-get install libavformat59 libavcodec59 libswscale6)" >&2; exit 1; }
done
system='/(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s|libz)\.so|/ld-linux'
if [ -z "$list" ]; then
  for l in $roots; do
    echo "$lib/$l"
    ldd "$lib/$l" | awk '$3 ~ /^\// {print $3}'
  done | sort -u | grep -v -E "$system" | while read -r f; do cp -L "$f" "$dir/av/"; done
else
  there=$(awk '{print $1}' "$list" | sort -u)
  has() { grep -qxF "$1" <<<"$there"; }
  real="$roots libx264.so.164 libx265.so.199 libopenmpt.so.0 libgme.so.0"
  needed() { readelf -d "$lib/$1" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p'; }
  # From the real ones, what they load, depth first; a library that is not real and not on the other
  # machine is a stand-in (stubs load nothing, so what it would load is not followed).
  declare -A seen=()
  queue=($real)
  while [ ${#queue[@]} -gt 0 ]; do
    b=${queue[0]}
    queue=("${queue[@]:1}")
    [ -n "${seen[$b]:-}" ] && continue
    seen[$b]=1
    case "$b" in libc.so.* | libm.so.* | libz.so.* | libstdc++.so.* | libgcc_s.so.* | ld-linux*) continue ;; esac
    case " $real " in
      *" $b "*) cp -L "$lib/$b" "$dir/av/"; queue+=($(needed "$b")) ;;
      *)
        has "$b" && continue
        [ -e "$lib/$b" ] || { echo "$lib/$b is missing" >&2; exit 1; }
        python3 "$here/stub_so.py" "$lib/$b" "$dir/av" >/dev/null ;;
    esac
  done
fi
tar -cf - -C "$dir" av | xz -9e -T0 >"$out"
echo "$out: $(ls "$dir/av" | wc -l) libraries, $(du -h "$out" | cut -f1)"
