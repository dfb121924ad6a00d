#!/usr/bin/env bash
# Box blur steps 35 and 36 (bench/NOTES.md): the H100's tuned pair shapes and their neighbours at d = 31 and 63, each
# built under several sets of extra build options (CLFILTERS_BUILD_OPTIONS, with -cl-nv-verbose so ptxas' registers
# and spills land in the program cache), in interleaved rounds, every output checked against the CPU reference.
# One device-tool call on an H100 (OUT set; ~3 min):
#   bash bench/results/2026-11-27-nvidia-h100-options-probe.sh NAME ROUNDS LABEL=OPTIONS ...
# Step 35 (register caps), at cc73cbe (then named ...-h100-regcap.sh, with these sets built in):
#   bash ... regcap 2 none= 72=-cl-nv-maxrregcount=72 64=-cl-nv-maxrregcount=64 56=-cl-nv-maxrregcount=56
# Step 36 (the prefetch loads issued after pair's start: a diagnostic -D PREFETCH_LATE, in box_blur.cl at 698574a only):
#   bash ... prefetch-late 3 early= late=-DPREFETCH_LATE=1
# Step 37 (L2 prefetches of the start's rows and of the rows K steps ahead, diagnostic -D START_L2, LOOP_L2, LOOP_L2_OUT):
#   bash ... l2-prefetch 2 base= start=-DSTART_L2=1 loop4=-DLOOP_L2=4 loop8=-DLOOP_L2=8 \
#     loop4o='-DLOOP_L2=4 -DLOOP_L2_OUT=1' both='-DSTART_L2=1 -DLOOP_L2=4'
# Step 38 (the start's rows beyond the register rounds by cp.async into the row buffers, diagnostic -D START_ASYNC=A
# and -D START_REG_ROWS=R in box_blur.cl at the commit that names this step):
#   bash ... start-async 2 base= a6r9='-DSTART_ASYNC=6 -DSTART_REG_ROWS=9' a6=-DSTART_ASYNC=6 r9=-DSTART_REG_ROWS=9 \
#     a3r4='-DSTART_ASYNC=3 -DSTART_REG_ROWS=4'
# Step 39 (fused_wide's 8-byte block sums, then overridable as -D PACKED_BLOCKS, and evict-first stores under a
# diagnostic -D STORE_CS: box_blur.cl as committed in 0af50a9 plus those two hooks, which were never committed), with D31 and D63
# as in bench/results/2026-11-27-nvidia-packed-blocks.md:
#   bash ... packed 3 packed= xh=-DPACKED_BLOCKS=0 cs=-DSTORE_CS=1
# Step 40 (fewer instructions a row: direct row loads, the bytes packed by adds, only the read columns stored, and
# evict-first stores in fused_packed, under diagnostic -D DIRECT_ROWS, PACK_ADD, STORE_READ and PACKED_CS in
# box_blur.cl at c35b287), on both devices, with D31, D63, D11 and DS as in
# bench/results/2026-11-27-nvidia-fewer-instructions.md (on the H100 a fourth set, nodirect, all but DIRECT_ROWS):
#   bash ... fewer 2 base= all='-DDIRECT_ROWS=1 -DPACK_ADD=1 -DSTORE_READ=1 -DPACKED_CS=1' direct=-DDIRECT_ROWS=1
# and the form of `direct`'s test (a diagnostic -D DIRECT_SC selecting c35b287's form in ecd0f5a's box_blur.cl, never
# committed): bash ... form 2 final= sc=-DDIRECT_SC=1
# Step 42 (wider work-groups, on the H200 at 1818fd9; no option sets, the shapes in D31 and D63):
#   p="fused_wide[items=4,mirror=1,ring=0,pair=1,direct=1,prefetch=1,strip=16,local_x"; q=${p/strip=16/strip=14}
#   r="fused_wide[items=8,mirror=1,ring=0,pair=0,direct=0,prefetch=1,strip=120,local_x"
#   D31="auto,$p=64],$p=128],$p=192]" D63="auto,$r=128],$r=256],$q=128],$q=192]" bash ... localx 2 base=
# Step 48 (what the H200's tuned shapes spend their time on: diagnostic builds -D DIAG_NO_START, DIAG_NO_LEAVE and
# DIAG_NO_WINDOW in box_blur.cl at the commit that names this step, whose outputs are wrong, so BENCH_FLAGS=--unchecked):
#   bash bench/results/2026-11-27-nvidia-diagnosis.sh
# Step 56 (the pair start's rows by a walking pointer, a diagnostic -D START_WALK hook in box_blur.cl at aaec795,
# never committed and described in bench/results/2026-11-28-nvidia-start-walk.md, with D31 and D63 as there; H200):
#   bash ... walk 2 base= walk=-DSTART_WALK=1
# Step 57 (H200; diagnostic hooks never committed, their diffs in bench/results/2026-11-29-nvidia-h200-probes.md):
#   p="fused_wide[direct=1,items=4,mirror=1,pair=1,ring=0"
#   D31="$p,local_x=64,prefetch=1,strip=12],$p,local_x=64,prefetch=4,strip=20]" \
#   D63="$p,local_x=64,prefetch=2,strip=20],$p,local_x=128,prefetch=1,strip=14]" bash ... l1hint 2 base= s=-DL1HINT=1 \
#     e=-DL1HINT=2 se=-DL1HINT=3 sel=-DL1HINT=7 ef=-DL1HINT=8 sr16=-DSTART_ROWS_OVERRIDE=16 sr4=-DSTART_ROWS_OVERRIDE=4
#   BENCH_FLAGS=--unchecked bash ... diag 2 base= halo=-DDIAG_HALO_SKIP=1 leave=-DDIAG_LEAVE_SAME=1 \
#     both='-DDIAG_HALO_SKIP=1 -DDIAG_LEAVE_SAME=1'
# and, on the committed code, local_x off the multiples of 32 (D31 / D63 lists only) and register caps:
#   bash ... localx 2 base=;  bash ... prefetch3 2 none= r64=-cl-nv-maxrregcount=64 r72=-cl-nv-maxrregcount=72
# and the row step's loads by walking pointers (-D STEP_WALK) with the delta window at items 8 (D31 / D63 in the md):
#   bash ... stepwalk 2 base= walk=-DSTEP_WALK=1 delta8=-DDELTA=1
# and restrict pointers with the evict-first store's "memory" clobber dropped (-D RESTRICT_PTRS, STORE_NOCLOBBER):
#   bash ... restrict 2 base= restrict=-DRESTRICT_PTRS=1 noclobber=-DSTORE_NOCLOBBER=1 both='-DRESTRICT_PTRS=1 -DSTORE_NOCLOBBER=1'
# BENCH_FLAGS adds flags to every bench call. D31, D63 and D11 override the variant lists (on the H200, its own tuned
# shapes); DS lists the diameters (31 63 by default). Until step 36 it ran the shape sweep's H200 sections on a card other than an H100.
set -u
cd "$(dirname "$0")/../.."
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
name=$1 rounds=$2; shift 2
echo "$gpu"
source bench/nvidia-setup.sh "$name"
p4="fused_wide[items=4,mirror=1,ring=0,pair=1,local_x"
d31=${D31:-"auto,$p4=64,strip=14,prefetch=2],$p4=64,strip=12,prefetch=2],$p4=64,strip=24,prefetch=2],$p4=96,strip=14,prefetch=2]"}
d63=${D63:-"auto,$p4=64,strip=24,prefetch=2],$p4=64,strip=32,prefetch=2]"}
d11=${D11:-auto}
ds=${DS:-31 63}
for round in $(seq $rounds); do
  for set in "$@"; do
    label=${set%%=*} opts="-cl-nv-verbose ${set#*=}"
    for d in $ds; do
      v=d$d; CLFILTERS_BUILD_OPTIONS="$opts" $cli bench box-blur --sizes 8192x8192 --params channels=4,diameter=$d \
        --warmup 10 --runs 50 --total-runs 1 --cpu-runs 0 ${BENCH_FLAGS:-} --variants "${!v}" 2>&1 | sed "s/^box-blur/$label box-blur/" \
        >> "$W/d$d.txt"
    done
  done
done
echo "benched: $(( $(date +%s) - t0 )) s"
# ptxas' report per program: the fused_wide builds' options, then each kernel's registers and spills.
for f in $XDG_CACHE_HOME/clfilters/programs/*.txt; do
  grep -q "DIAMETER=" "$f" || continue
  # The set's own options are what follows -cl-nv-verbose (CLFILTERS_BUILD_OPTIONS comes last); until the thirty-ninth
  # session only the last -D without digits in its name was shown, so two sets could print alike.
  echo "$(head -1 "$f" | grep -oE 'ITEMS=[0-9]+|PREFETCH=[0-9]+|PAIR=[0-9]+|DIAMETER=[0-9]+' | paste -sd' ') \
$(head -1 "$f" | sed -n 's/.*-cl-nv-verbose *//p') | $(grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill (stores|loads)' "$f" | grep -v ' 0 bytes' | paste -sd' ')"
done | sort -u > "$W/registers.txt"
for d in $ds; do
  echo "== d = $d: kernel median ms per round, by variant and option set"
  grep -E '^[^ ]+ box-blur ' "$W/d$d.txt" | awk '{k = $6 "  " $1; t[k] = t[k] " " $7} END {for (k in t) print k ":" t[k]}' |
    sort | sed -E 's/fused_(wide|packed)\[//; s/,ring=0|,mirror=1//g'
done
echo "== registers (ptxas; the first count is the fused kernel's)"; cut -c1-150 "$W/registers.txt" | head -30
for d in $ds; do cp "$W/d$d.txt" "$OUT/"; done
cp "$W/registers.txt" "$OUT/"
