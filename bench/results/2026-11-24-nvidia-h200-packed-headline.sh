# H200 call of 2026-11-24 (third session): the box blur tests on the NVIDIA device, then the tuned
# headline and peers (bench/final-gpu.sh headline) with the database re-tuned for fused_packed.
# Through the device tool: bash THIS_FILE (OUT set).
set -u
CLF_HEADLINE_TESTS='Box' bash bench/final-gpu.sh "$OUT" headline
