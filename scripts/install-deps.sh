#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages clfilters needs, only those that are missing (OpenMPI for clfilters-mpi among them).
# `install-deps.sh fuzz` adds clang and its libFuzzer runtime, for scripts/fuzz.sh.
set -euo pipefail
packages=(build-essential cmake git clang-format-14 ocl-icd-opencl-dev opencl-headers opencl-clhpp-headers pocl-opencl-icd clinfo
          libpng-dev libjpeg62-turbo-dev libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev ffmpeg pkgconf
          libopencv-dev python3-dev python3-pip libopenmpi-dev openmpi-bin)
[ "${1:-}" = fuzz ] && packages+=(clang-14 libclang-rt-14-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# The Python package's build and tests (python/): its Python modules, from PyPI, only those that are missing
# (module:package where the names differ; cv2 for the side-by-side test with OpenCV and bench/peers.py). A
# Debian-managed Python (PEP 668) takes them with --break-system-packages.
python_modules() {
  local missing_py=()
  for m in numpy pytest nanobind pyopencl cv2:opencv-python-headless; do
    python3 -c "import ${m%%:*}" 2>/dev/null || missing_py+=("${m#*:}")
  done
  [ ${#missing_py[@]} -eq 0 ] && return
  echo "Installing from PyPI: ${missing_py[*]}"
  python3 -m pip install -q "${missing_py[@]}" 2>/dev/null ||
    python3 -m pip install -q --break-system-packages "${missing_py[@]}"
}
[ ${#missing[@]} -eq 0 ] && { python_modules; exit 0; }
echo "Installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
python_modules
