#!/bin/bash
# Fills the folder the device tool carries for the GPU-frames bench (issue 34):
#   bash bench/gpuFrames/prepare-carry.sh [CARRY_DIR]       (default /work/main/.gpucarry)
# A device call sends the session's checkout, not a helper's worktree: CARRY_DIR must be an ignored folder of that
# checkout (/.gpucarry/ in its .git/info/exclude). Then:
#   run(command="OUT=$OUT bash .gpucarry/run-on-device.sh", carry=[".gpucarry"], timeout_s=600)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
CARRY=${1:-/work/main/.gpucarry}
FF=${FF:-/tmp/gpuff/out}
[ -x "$FF/bin/ffmpeg" ] || bash "$REPO/bench/gpuFrames/prepare-ffmpeg.sh" "$FF"
mkdir -p "$CARRY/bin"
cp "$FF/bin/ffmpeg" "$CARRY/bin/"
cp "$REPO/resources/python/fp_gpu_frames.py" "$REPO/bench/gpuFrames/device_bench.py" "$REPO/bench/gpuFrames/run-on-device.sh" "$REPO/bench/gpuFrames/run-with-mps.sh" "$CARRY/"
# The helper as it landed in session 14 (before run 3's changes), for the bench's v1-against-v2 phases.
git -C "$REPO" show "${V1_REF:-5c476ee}:resources/python/fp_gpu_frames.py" > "$CARRY/fp_gpu_frames_v1.py"
(cd "$REPO" && node_modules/.bin/tsx bench/gpuFrames/workload.ts "$CARRY/workload.json")
(cd "$REPO" && echo "$(git rev-parse --abbrev-ref HEAD) $(git rev-parse --short HEAD)$(git diff --quiet || echo +dirty) $(date -u +%FT%TZ)") > "$CARRY/BUILD"
du -sh "$CARRY"/*
