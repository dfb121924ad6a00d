# H200 closing call of 2026-11-24 (third session): re-tune box blur with fused_packed's finer strips and
# local_x 96 (bench/final-gpu.sh tune, box blur only; 8k 120 s, 1080p 45 s), then the box blur tests on the
# NVIDIA device and the tuned headline and peers with that database.
# Through the device tool: bash THIS_FILE (OUT set).
set -u
CLF_TUNE_FILTERS=box-blur CLF_TUNE_8K=120 CLF_TUNE_1080P=45 bash bench/final-gpu.sh "$OUT" tune
CLF_TUNING_FILE="$OUT/tuning.json" CLF_HEADLINE_TESTS='Box' bash bench/final-gpu.sh "$OUT" headline
