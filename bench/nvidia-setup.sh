# Sourced by the device-tool run scripts in bench/results/, from the repository root: registers NVIDIA's OpenCL driver
# (shared/GPU.md), builds the release preset (only TARGETs if given), and gives the run its own program cache holding
# the committed tuning database. Sets t0, W (the scratch folder /tmp/NAME), db (the run's database) and cli; exits the
# calling script, with the build log's tail, if the build fails.
#   source bench/nvidia-setup.sh NAME [TARGET...]
nvidia_setup() {
  local name=$1
  shift
  t0=$(date +%s)
  W=/tmp/$name
  rm -rf "$W" && mkdir -p "$W"
  if [ ! -f /etc/OpenCL/vendors/nvidia.icd ] && [ -e /usr/lib/libnvidia-opencl.so.1 ]; then
    mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
  fi
  { cmake --preset release -DCLF_FILTERS= && cmake --build --preset release -j "$(nproc)" ${1:+--target} "$@"; } \
    > "$W/build.log" 2>&1 || { tail -30 "$W/build.log"; return 1; }
  echo "build: $(( $(date +%s) - t0 )) s"
  export XDG_CACHE_HOME=/tmp/$name-cache CLFILTERS_DEVICE=nvidia
  rm -rf "$XDG_CACHE_HOME" && mkdir -p "$XDG_CACHE_HOME/clfilters"
  db=$XDG_CACHE_HOME/clfilters/tuning.json
  cp bench/results/2026-11-24-nvidia-tuning.json "$db"
  cli=build/release/tools/clfilters
}
nvidia_setup "$@" || exit 1
