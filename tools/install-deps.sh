#!/usr/bin/env bash
# Installs the Debian 12 packages satlab needs, only those missing; --test adds what the tests need,
# --bench what the benchmark scripts need too. Root, or a user with sudo.
set -euo pipefail
pkgs=(build-essential cmake pkg-config libglfw3-dev libimgui-dev libstb-dev python3-glad libcli11-dev
      nlohmann-json3-dev zlib1g-dev libjpeg62-turbo-dev libwebp-dev libtiff-dev libheif-dev liblcms2-dev
      libgtest-dev libgmock-dev libegl-dev libgl-dev libegl-mesa0 libgl1-mesa-dri
      libavformat-dev libavcodec-dev libswscale-dev libavutil-dev libopenexr-dev)
# libheif: HEIC images and depth; FFmpeg's libraries: videos (both loaded at run time). GoogleTest is a build dependency (the test targets).
case "${1:-}" in
  --test) pkgs+=(xvfb xauth) ;;  # the tests' own: a virtual display for the window tests
  # The benchmark scripts' anchors and plots (tools/stereo_bench.py's OpenCV, tools/plot_bench.py's and the
  # quality tools' matplotlib): never the app's, never the tests'.
  --bench) pkgs+=(xvfb xauth python3-matplotlib python3-opencv) ;;
  "") ;;
  *) echo "install-deps.sh: unknown option '$1' (--test, --bench)" >&2; exit 2 ;;
esac
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "satlab: installing Debian packages: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
if [ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null; then
  echo "satlab: CUDA toolkit found: the GPU backend will be built"
else
  echo "satlab: no CUDA toolkit (/usr/local/cuda): building the CPU backend only"
fi
