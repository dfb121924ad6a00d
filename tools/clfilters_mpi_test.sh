#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# clfilters-mpi under mpirun against clfilters on one device: the same output files byte for byte (.npy through
# MPI-IO, PNG gathered to rank 0), the same iteration count and last change under a tolerance, an 8-bit initial
# image; and its errors: one line, the exit code, no output or temporary file left, an existing output kept.
# Usage: clfilters_mpi_test.sh RANKS WORKDIR CLFILTERS CLFILTERS_MPI MPIEXEC [MPIEXEC_ARGS...]
# (MPIEXEC_ARGS end with the flag that takes the number of ranks.)
set -euo pipefail
ranks=$1 work=$2 one=$3 many=$4
shift 4
mpi=("$@" "$ranks" "$many" reconstruct)
rm -rf "$work" && mkdir -p "$work" && cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

# Random float edges, a random float initial iterate and an 8-bit one; fresh each run.
python3 - <<'EOF'
import numpy as np
rng = np.random.default_rng()
h, w = int(rng.integers(40, 120)), int(rng.integers(20, 150))
np.save("edges.npy", rng.uniform(-300, 300, (h, w)).astype(np.float32))
np.save("initial.npy", rng.uniform(0, 255, (h, w)).astype(np.float32))
np.save("initial8.npy", rng.integers(0, 256, (h, w), dtype=np.uint8))
EOF
"$one" box-blur initial8.npy initial8.png -d 1 > /dev/null  # an 8-bit PNG initial image

same_run() {  # NAME DEPTH ARGS...: both runs' outputs and iteration lines must agree (--exchange-every DEPTH)
  local name=$1 depth=$2
  shift 2
  "$one" reconstruct edges.npy "one-$name" "$@" > one.log
  "${mpi[@]}" edges.npy "many-$name" --exchange-every "$depth" "$@" > many.log
  cmp "one-$name" "many-$name" || fail "$name: outputs differ ($*)"
  [ "$(sed -n 2p one.log)" = "$(sed -n 2p many.log)" ] ||
    fail "$name: $(sed -n 2p one.log) against $(sed -n 2p many.log)"
  grep -q "on $ranks ranks" many.log || fail "$name: not on $ranks ranks: $(head -1 many.log)"
}
same_run plain.npy 4 -n 45 --initial initial.npy
same_run deep.npy 16 -n 37 --variant wavefront
same_run image.png 3 -n 30 --initial initial8.png
# A tolerance the run reaches after some 20 iterations, checked every 6: the stop falls inside a window.
change=$("$one" reconstruct edges.npy probe.npy -n 20 | sed -n 's/.*last one \([0-9.e+-]*\).*/\1/p')
same_run tolerance.npy 5 -n 1000 --tolerance "$change" --check-every 6
grep -q converged many.log || fail "the tolerance run did not converge: $(cat many.log)"

expect_error() {  # CODE TEXT ARGS...: exit CODE, one line naming TEXT, no output files left
  local code=$1 text=$2 status=0
  shift 2
  "${mpi[@]}" "$@" > run.log 2> err.log || status=$?
  [ "$status" = "$code" ] || fail "exit $status, not $code, for $*: $(cat err.log)"
  [ "$(grep -c '^clfilters-mpi: ' err.log)" = 1 ] || fail "not one error line for $*: $(cat err.log)"
  grep -q "$text" err.log || fail "no '$text' in: $(cat err.log)"
}
expect_error 1 missing.npy missing.npy out.npy
expect_error 1 "float32" initial8.npy out.npy
expect_error 1 "out/x.npy" edges.npy out/x.npy
expect_error 2 "unknown image file extension" edges.npy out.txt
python3 -c "import numpy as np; np.save('two_rows.npy', np.ones((2, 5), np.float32))"
expect_error 1 "initial image is" edges.npy out.npy --initial two_rows.npy
[ "$ranks" -gt 2 ] && expect_error 2 "rows, one a rank" two_rows.npy out.npy
echo kept > kept.npy
expect_error 1 "float32" initial8.npy kept.npy
[ "$(cat kept.npy)" = kept ] || fail "a failed run replaced an existing output"
[ -z "$(find . -name '.*tmp*' -o -name 'out.*')" ] || fail "left behind: $(find . -name '.*tmp*' -o -name 'out.*')"
echo "clfilters-mpi on $ranks ranks: the one-device outputs and errors"
