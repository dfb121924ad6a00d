# H200 closing calls of 2026-11-24 (fourth session, after fused_wide), two device-tool calls (each under the
# 10-minute limit):
#   bash THIS_FILE tune      re-tune box blur with fused_wide and the d<=64 class (bench/final-gpu.sh tune,
#                            box blur only; 8k 380 s, 1080p 50 s) from the committed database; OUT/tuning.json
#                            becomes bench/results/2026-11-23-nvidia-h200-tuning.json and OUT/tune.log
#                            ...-wide-tune.log
#   bash THIS_FILE headline  the box blur tests on the NVIDIA device, then the tuned headline and peers
#                            (bench/final-gpu.sh headline) with the committed database
# Through the device tool (OUT set).
set -u
case "${1:?tune|headline}" in
  tune) CLF_TUNE_FILTERS=box-blur CLF_TUNE_8K=380 CLF_TUNE_1080P=50 bash bench/final-gpu.sh "$OUT" tune ;;
  headline) CLF_HEADLINE_TESTS='Box' bash bench/final-gpu.sh "$OUT" headline ;;
esac
