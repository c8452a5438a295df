#!/bin/bash
# On the device machine (issue 45): OUT=$OUT bash .gpusweep/run-on-device.sh   (see prepare-carry.sh)
# Knobs: SCALES (default 1,4: the sample's 14 and 56 videos), ORDER (default cpu,gpu,gpu,cpu), EXTRA (more modes on
# the larger fixture: gpu:8, gpu+beside (a model-shaped matmul beside the run: the GPU time taken), gpu+FP_GPU_JPEG=pillow
# (an environment for the run), gpu+prof (node --cpu-prof in the run's node processes: self time by function in
# sweep.json)), DEADLINE (seconds for the runs, default 470), WORK (default /tmp/gs), FFCOST=0,
# PARTS=1 (parts.py after the runs), NVJPEG=0 (nvJPEG's 4:2:0 against pillow's: $OUT/nvjpeg.json), SAMEBYTES=0 (the helper's bytes with its jobs on
# threads against one job a process: $OUT/samebytes.json) and FLOOR=0 skip those steps. Everything it prints is also in $OUT/log.txt; the figures in $OUT/sweep.json,
# $OUT/ffcost.json (ffmpeg's own costs, sweep_bench.py ffcost) and $OUT/floor.json (bench/frames.ts phases a,c,d on
# the 14-video fixture: the CPU path's pipeline alone, its decode limit and its floor, on the quiet machine).
set -u
C=$(cd "$(dirname "$0")" && pwd)
WORK=${WORK:-/tmp/gs}
T0=$(date +%s)
mkdir -p "$WORK" "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
echo "carry: $(cat "$C/BUILD")"
python3 -c "import tarfile; tarfile.open('$C/app.tar.xz').extractall('$WORK')" || exit 1
APP=$WORK/app
for f in fp_gpu_frames.py fp_nvdec.py; do [ -f "$C/$f" ] && cp "$C/$f" "$APP/resources/python/$f"; done
chmod +x "$APP/bin/"*
export PATH=$APP/bin:$PATH NODE_BIN=$APP/bin/node FFMPEG_BIN=$APP/bin/ffmpeg FFPROBE_BIN=$APP/bin/ffprobe
export VLLM_BIN=$APP/bin/fake-vllm PYTHON=python3 FP_GPU_STATS=1 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
echo "host: $(nproc) cores, $(awk '/MemTotal/ {print $2/1048576 " GiB"}' /proc/meminfo), $(uname -r)"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
python3 -c "import torch, PIL; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'pillow', PIL.__version__)"
node --version; ffmpeg -hide_banner -hwaccels | tr '\n' ' '; echo
nvidia-smi -q | grep -i -A1 "compute mode" | head -2
python3 "$C/sweep_bench.py" fixtures --cli "$APP/dist/cli.js" --work "$WORK" --scales "${SCALES:-1,4}" || exit 1
echo "setup + fixtures: $(( $(date +%s) - T0 )) s"
# NVDEC_CHECK=1: the helper's own NVDEC (fp_nvdec.py) against ffmpeg's, frame for frame on the 14-video fixture;
# NVDEC_REQUIRED=1 ends the call there when a frame differs.
if [ "${NVDEC_CHECK:-0}" = 1 ]; then
  timeout 180 python3 "$C/nvdec_check.py" --fixture "$WORK/p1" --ffmpeg "$APP/bin/ffmpeg" --out "$OUT" --videos "${NVDEC_VIDEOS:-8}"
  if [ "${NVDEC_REQUIRED:-0}" = 1 ] && ! grep -q '"all_identical": true' "$OUT/nvdec_check.json" 2>/dev/null; then
    echo "nvdec_check: not identical: stop"; exit 3
  fi
fi
[ "${FFCOST:-1}" = 1 ] && python3 "$C/sweep_bench.py" ffcost --work "$WORK" --out "$OUT" --scale 1
[ "${NVJPEG:-1}" = 1 ] && timeout 60 python3 "$C/sweep_bench.py" nvjpeg --work "$WORK" --out "$OUT"
[ "${SAMEBYTES:-1}" = 1 ] && timeout 120 python3 "$C/sweep_bench.py" samebytes --work "$WORK" --out "$OUT"
if [ "${FLOOR:-1}" = 1 ]; then
  UV_THREADPOOL_SIZE=$(nproc) node "$APP/dist/bench-frames.js" --package "$WORK/p1" --scale 1 --phases a,c,d --json "$OUT/floor.json" 2>&1 | tail -12
fi
echo "ffcost + floor: $(( $(date +%s) - T0 )) s"
python3 "$C/sweep_bench.py" runs --cli "$APP/dist/cli.js" --work "$WORK" --out "$OUT" --scales "${SCALES:-1,4}" \
  --order "${ORDER:-cpu,gpu,gpu,cpu}" --extra "${EXTRA:-}" --deadline "${DEADLINE:-470}"
# PARTS=1: where the GPU time goes inside the jobs a "+tee" run captured (parts.py; the largest capture), until
# PARTS_UNTIL seconds since the start (default 560); PARTS_N jobs (default 16), PARTS_VARIANTS (parts.py's --variants).
J=$(ls -S "$WORK"/jobs-*.jsonl 2>/dev/null | head -1)
if [ "${PARTS:-0}" = 1 ] && [ -n "$J" ]; then
  T=$(basename "$J" .jsonl); T=${T#jobs-}; S=${T#s}; S=${S%%-*}
  python3 "$C/parts.py" --jobs-file "$J" --run-pkg "$WORK/run-$T" --fixture "$WORK/p$S" --work "$WORK" --out "$OUT" \
    --n "${PARTS_N:-16}" ${PARTS_VARIANTS:+--variants "$PARTS_VARIANTS"} --deadline $(( ${PARTS_UNTIL:-560} - ($(date +%s) - T0) ))
fi
# The host model fed with this run's figures (derive.py, then bench/hostSim bundled: every HOSTSIM_SAMPLE-th video),
# where the call has time left (HOSTSIM_UNTIL, seconds since the start; the device tool's call is 600 s at most).
if [ -f "$C/hostsim.js" ] && [ $(( ${HOSTSIM_UNTIL:-585} - ($(date +%s) - T0) )) -gt 60 ]; then
  python3 "$C/derive.py" "$OUT/sweep.json" "$OUT/gpu-frames-sweep.json" "the device run ($(cat "$C/BUILD"))" > /dev/null \
    && timeout $(( ${HOSTSIM_UNTIL:-585} - ($(date +%s) - T0) )) node --max-old-space-size=4096 "$C/hostsim.js" --bundled \
      --sample "${HOSTSIM_SAMPLE:-4}" --no-ablations --gpu-frames "$OUT/gpu-frames-sweep.json" > "$OUT/hostsim.txt" 2>&1
  tail -12 "$OUT/hostsim.txt"
fi
# Every run's log in one file (the device tool brings back 8 files at most).
python3 -c "import glob, os, tarfile; t = tarfile.open('$OUT/run-logs.tar.xz', 'w:xz'); [t.add(f, os.path.basename(f)) for f in sorted(glob.glob('$WORK/run-*.log'))]; t.close()"
echo "total: $(( $(date +%s) - T0 )) s"
