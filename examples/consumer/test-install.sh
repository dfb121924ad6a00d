#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The installed package, as a user outside the tree meets it: installs this build (static) and a shared build
# of the same sources into temporary prefixes, then builds and runs consumer.cpp against each, once through
# find_package(clfilters) and once through pkg-config. The consumer checks its blur against the CPU reference.
#   Usage: test-install.sh SOURCE_DIR BUILD_DIR IMAGE [COMPILER_LAUNCHER]
set -euo pipefail
src=$1 build=$2 image=$3 launcher=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
here=$src/examples/consumer
cmake_args=(-DCMAKE_BUILD_TYPE=Release ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher})

check_package() {  # check_package PREFIX NAME [--static]
  local prefix=$1 name=$2 static=${3:-}
  echo "== $name: find_package(clfilters)"
  cmake -S "$here" -B "$work/$name-cmake" "${cmake_args[@]}" -DCMAKE_PREFIX_PATH="$prefix" > "$work/log" ||
    { cat "$work/log"; exit 1; }
  cmake --build "$work/$name-cmake" > "$work/log" || { cat "$work/log"; exit 1; }
  "$work/$name-cmake/consumer" "$image" "$work/$name-cmake.png"
  echo "== $name: pkg-config --cflags --libs $static clfilters"
  local pcdir flags
  pcdir=$(dirname "$(find "$prefix" -name clfilters.pc)")
  flags=$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs $static clfilters)
  echo "$flags"
  c++ "$here/consumer.cpp" $flags -o "$work/$name-pc"
  LD_LIBRARY_PATH=$(dirname "$pcdir") "$work/$name-pc" "$image" "$work/$name-pc.png"
}

cmake --install "$build" --prefix "$work/static" > /dev/null
check_package "$work/static" static --static

echo "== shared: build and install"
# The packaging is under test, not the speed: -O0 without debug information builds the second copy fastest.
cmake -S "$src" -B "$work/shared-build" ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher} -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG=-O0 -DBUILD_SHARED_LIBS=ON -DCLF_BUILD_TESTS=OFF > "$work/log" || { cat "$work/log"; exit 1; }
cmake --build "$work/shared-build" -j "$(nproc)" --target clfilters clfilters_cli > "$work/log" ||
  { tail -40 "$work/log"; exit 1; }
cmake --install "$work/shared-build" --prefix "$work/shared" > /dev/null
# The installed tool runs from its prefix alone, on the shared library installed beside it.
ldd "$work/shared/bin/clfilters" | grep 'libclfilters\.so\.[0-9]' || { echo "clfilters is not linked to libclfilters.so"; exit 1; }
"$work/shared/bin/clfilters" --version
"$work/shared/bin/clfilters" box-blur "$image" "$work/shared-cli.png" --diameter 7
check_package "$work/shared" shared
echo "installed packages work"
