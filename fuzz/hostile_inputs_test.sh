#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The hostile inputs a fuzzing pass found, each run through the clfilters command under `ulimit -v 1000000`
# (1 GB of address space): each must be refused with exit status 1 and one line on stderr that names the file,
# before anything large is allocated. Usage: hostile_inputs_test.sh CLFILTERS WORK_DIR
set -uo pipefail
cli=$1
work=$2
archive=$(cd "$(dirname "$0")" && pwd)/corpus.tar.gz
rm -rf "$work" && mkdir -p "$work/seeds" && cd "$work" && tar -xzf "$archive" -C seeds || exit 2
seeds=$work/seeds/corpus
export CLFILTERS_TUNING_DB=$work/tuning.json XDG_CACHE_HOME=$work/cache
failures=0

# expect_refusal NAME FILE COMMAND...: exit 1, one line on stderr naming FILE, no output file left behind.
expect_refusal() {
  local name=$1 file=$2
  shift 2
  (ulimit -v 1000000 && exec "$@") >stdout.txt 2>stderr.txt </dev/null
  local status=$? lines
  lines=$(wc -l <stderr.txt)
  if [ $status -ne 1 ] || [ "$lines" -ne 1 ] || ! grep -qF -- "$file" stderr.txt || ls -A | grep -q '^out\|tmp-'; then
    echo "FAIL $name: exit $status, $lines line(s) on stderr:"
    head -c 2000 stderr.txt
    failures=$((failures + 1))
  else
    echo "ok   $name: $(cat stderr.txt)"
  fi
  rm -f out.* .out.*
}

# The test inputs, written by Python's standard library so that the bytes are spelled out here.
python3 - "$seeds" <<'PY' || exit 2
import struct, sys, zlib
seeds = sys.argv[1]
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
# 1. An ancillary chunk declaring 0x7FFFFFFF bytes after a 1x1 IHDR (41 bytes).
open("huge_chunk.png", "wb").write(bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108000000003a7e9b557fffffff7343414c"))
# 2. A 1-bit palette image of 32768x16384 with a transparent entry: 64 MiB of rows deflate to about 65 KB, and
#    expand to 2 GiB of RGBA.
ihdr = struct.pack(">IIBBBBB", 32768, 16384, 1, 3, 0, 0, 0)
rows = zlib.compress(b"\0" * (16384 * (32768 // 8 + 1)), 9)
open("palette_bomb.png", "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"PLTE", b"\0\0\0\xff\xff\xff")
                                     + chunk(b"tRNS", b"\0") + chunk(b"IDAT", rows) + chunk(b"IEND", b""))
# 3. A small JPEG whose frame header declares 65500x32785, and one declaring 16384x16384 (within the limits).
jpeg = bytearray(open(seeds + "/jpeg/grey.jpg", "rb").read())
sof = jpeg.index(b"\xff\xc0")
jpeg[sof + 5:sof + 9] = struct.pack(">HH", 32785, 65500)
open("huge.jpg", "wb").write(jpeg)
jpeg[sof + 5:sof + 9] = struct.pack(">HH", 16384, 16384)
open("short.jpg", "wb").write(jpeg)
# 4. A Y4M header declaring 16383x32768 4:4:4 with alpha: 2 GiB a frame, about 10 GiB with three in flight.
open("huge.y4m", "wb").write(b"YUV4MPEG2 W16383 H32768 C444alpha\nFRAME\n" + b"\x80" * 4096)
# 7. A frame of exactly 2^29 pixels.
open("two_pow_29.y4m", "wb").write(b"YUV4MPEG2 W32768 H16384 Cmono\nFRAME\n" + b"\x80" * 4096)
PY

expect_refusal "PNG chunk of 2 GiB" huge_chunk.png "$cli" box-blur huge_chunk.png out.png
expect_refusal "1-bit palette PNG expanding to 2 GiB" palette_bomb.png "$cli" box-blur palette_bomb.png out.png
expect_refusal "JPEG declaring 65500x32785" huge.jpg "$cli" box-blur huge.jpg out.png
expect_refusal "JPEG declaring 2^28 pixels in a few hundred bytes" short.jpg "$cli" box-blur short.jpg out.png
expect_refusal "Y4M frames of 2 GiB" huge.y4m "$cli" epsilon huge.y4m out.y4m
expect_refusal "Y4M frame of 2^29 pixels" two_pow_29.y4m "$cli" epsilon two_pow_29.y4m out.y4m
expect_refusal "raw YUV frame of 2^29 pixels" "<stdin>" "$cli" epsilon - out.yuv --raw-format nv12 --size 32768x16384
expect_refusal "/dev/zero as an image" /dev/zero "$cli" box-blur /dev/zero out.png
expect_refusal "--max-pixels below the image" rgb.png "$cli" box-blur "$seeds/png/rgb.png" out.png --max-pixels 8

[ $failures -eq 0 ] && echo "all refused as expected" || echo "$failures failure(s)"
exit $((failures != 0))
