# Does the committed tuning database, re-keyed by kernel code (format 2, eighteenth session), still drive
# `auto` on the GPU? Each CLI call on an 8k input prints the variant it ran and why; every one must say
# "(tuned)" with the configuration the database holds for this device at >16MP. Last: one line per case.
# Through the device tool: bash THIS_FILE (OUT set).
set -u
cd "$(dirname "$0")/../.."
bench/gpu-quick.sh "$OUT" "box_blur;sobel;bilateral;epsilon" "" || exit 1
export XDG_CACHE_HOME=/tmp/clfilters-gpu-cache CLFILTERS_DEVICE=nvidia
db=bench/results/2026-11-24-nvidia-tuning.json
mkdir -p $XDG_CACHE_HOME/clfilters && cp $db $XDG_CACHE_HOME/clfilters/tuning.json
python3 -c "
import numpy as np
r = np.random.default_rng(8)
np.save('/tmp/rgba.npy', r.integers(0, 256, (8192, 8192, 4), dtype=np.uint8))
np.save('/tmp/grey.npy', r.integers(0, 256, (8192, 8192), dtype=np.uint8))"
cli=build/release/tools/clfilters
{
  for d in 3 9 11 31 63; do $cli box-blur /tmp/rgba.npy /tmp/out.npy -d $d; done
  $cli sobel /tmp/grey.npy /tmp/out.npy --output magnitude
  $cli sobel /tmp/grey.npy /tmp/out.npy --output gradients
  $cli bilateral /tmp/grey.npy /tmp/out.npy --radius 4
  $cli bilateral /tmp/rgba.npy /tmp/out.npy --radius 4
  $cli epsilon /tmp/grey.npy /tmp/out.npy -r 4 -t 20
} > "$OUT/choices.txt" 2>&1
python3 - "$OUT/choices.txt" "$db" <<'PY'
import json, re, sys
lines = open(sys.argv[1]).read().splitlines()
device = next((re.search(r" on (.*?) \(", l).group(1) for l in lines if " on " in l), "?")
best = {f"{e['best']['variant']}[{e['best']['config']}]" if e['best']['config'] else e['best']['variant']
        for e in json.load(open(sys.argv[2]))["entries"] if e["device"] == device and e["size_class"] == ">16MP"}
bad = 0
for l in lines:
    m = re.search(r"variant=(\S+) \((\w+)\)", l)
    if not m: print("??", l); bad += 1; continue
    ok = m.group(2) == "tuned" and m.group(1) in best
    bad += not ok
    print("ok " if ok else "BAD", l.split(" on ")[0])
print(f"{device}: {len(lines) - bad} of {len(lines)} calls ran the database's choice")
PY
