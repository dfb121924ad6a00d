# H200 call of 2026-11-24 (third session): re-tune box blur after fused_packed and the new tuning classes
# (bench/final-gpu.sh tune, box blur only; 8k 200 s, 1080p 60 s), from the committed database.
# Through the device tool: bash THIS_FILE (OUT set).
set -u
CLF_TUNE_FILTERS=box-blur CLF_TUNE_8K=200 CLF_TUNE_1080P=60 bash bench/final-gpu.sh "$OUT" tune
