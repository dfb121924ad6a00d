#!/usr/bin/env bash
# Interim box blur timing until `clfilters bench` exists: every variant on a synthetic WxH RGBA image
# (a horizontal gradient plus noise), the median kernel time of RUNS calls of the CLI with --time.
# Usage: bench/box-blur-variants.sh [CLI] [WxH] [RUNS] ["D1 D2 ..."]   Prints a Markdown table.
set -euo pipefail
cli="${1:-build/release/tools/clfilters}"
size="${2:-1920x1080}"
runs="${3:-5}"
diameters="${4:-2 3 5 9 15 31}"
w=${size%x*}; h=${size#*x}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp/in.npy" "$w" "$h" <<'PY'
import random, struct, sys
path, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(1)
header = "{'descr': '|u1', 'fortran_order': False, 'shape': (%d, %d, 4), }" % (h, w)
header += " " * (118 - len(header)) + "\n"
row = bytes(((x * 255) // max(w - 1, 1) + rng.randrange(40)) % 256 for x in range(w) for _ in range(4))
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    for y in range(h):
        f.write(row[(y * 4) % len(row):] + row[:(y * 4) % len(row)])
PY
device=$("$cli" box-blur "$tmp/in.npy" "$tmp/out.npy" -d 1 | sed -E 's/.* on (.*) \((.*)\): .*/\1 (\2)/')
echo "Box blur, ${w}x${h} RGBA, replicate border, median kernel time of $runs runs (ms), on $device"
echo
printf '| d |'; for v in naive block4x4 two_pass separable_sliding local_tile; do printf ' %s |' "$v"; done; echo
printf '|---|'; for _ in 1 2 3 4 5; do printf -- '---|'; done; echo
for d in $diameters; do
  printf '| %s |' "$d"
  for v in naive block4x4 two_pass separable_sliding local_tile; do
    times=()
    for _ in $(seq "$runs"); do
      line=$("$cli" box-blur "$tmp/in.npy" "$tmp/out.npy" -d "$d" --variant "$v" --time 2>&1 | tail -1 || true)
      [[ $line == kernel* ]] || { times=(); break; }
      times+=("$(awk '{print $2}' <<< "$line")")
    done
    if [ ${#times[@]} -eq 0 ]; then printf ' n/a |'; else
      printf ' %s |' "$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"; fi
  done
  echo
done
