#!/bin/bash
# What runs on the borrowed 16-core host (device machine), from the repository root there:
#   bash .carry/run-on-device.sh [main|second|variants|all]
# .carry/ is what bench/device/prepare-carry.sh made here (fp.tar.xz: node, static ffmpeg/ffprobe, the
# bundled bench, sharp; plus these scripts and the sent sizes). Everything lands under $OUT:
#   device.log (all output), runs.jsonl (one bench/frames.ts or OpenCV result a line),
#   qwen_tokens_transformers.json.
# main: qwen tokens; the natural package (scale $SCALE); the bench at pool 15 with (a) (b) (c) (d);
#       OpenCV at pool 15; (a) (c) (d) at pool 1, 2, 4, 8, 12, 16; OpenCV at pool 8.
# second: what main's runs could not finish (their (b) threw on an empty seek, fixed since): pool 15 (a) (b) (c) (d),
#         OpenCV at pool 15, (a) (c) at pool 1, 2, 4, 8, 12, 16, a repeat and two ffmpeg-thread variants, qwen tokens.
# confirm: the tuned pool (4) against pool 15, interleaved, three times each; qwen tokens; OpenCV at pool 4.
# variants: pool 15 with ffmpeg threads 1 / 2 / auto, UV pool 8 / 32, raw budget 128 MiB / 1 GiB.
# Each step is skipped once the call nears its 10-minute limit ($DEADLINE s), so what ran comes back.
set -u
STAGE=${1:-main}
SCALE=${SCALE:-2}
DEADLINE=${DEADLINE:-540}
C=$(cd "$(dirname "$0")" && pwd)
FP=/tmp/fp
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/device.log") 2>&1
T0=$(date +%s)
left() { echo $(( DEADLINE - ($(date +%s) - T0) )); }
step() { # step NEEDED_S description command...
  local need=$1; shift; local what=$1; shift
  if [ "$(left)" -lt "$need" ]; then echo "== SKIP $what ($(left) s left, needs ~$need)"; return 0; fi
  echo "== $what  [t=$(( $(date +%s) - T0 )) s]"; "$@"; echo "== rc=$? $what [t=$(( $(date +%s) - T0 )) s]"
}

if [ ! -x $FP/bin/node ]; then
  mkdir -p $FP
  python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$C/fp.tar.xz" $FP || exit 1
fi
export PATH=$FP/bin:$PATH UV_THREADPOOL_SIZE=${UV_THREADPOOL_SIZE:-16}
echo "carry: $(cat "$C/BUILD" 2>/dev/null || echo "no BUILD file")"
echo "host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), $(free -g | awk '/Mem:/{print $2}') GiB; node $(node -v); $(ffmpeg -hide_banner -version | head -1)"
python3 -c "import cv2, transformers; print('cv2', cv2.__version__, 'transformers', transformers.__version__)"

bench() { # bench TAG ARGS... : one bench/frames.ts run; its JSON (rewritten as each phase ends, so a failed
  # run still brings back the phases it finished) is appended to runs.jsonl with the tag, UV threads and rc
  local tag=$1; shift
  rm -f $FP/last.json
  node $FP/bench-frames.js --package $FP/pkg --scale "$SCALE" --json $FP/last.json "$@"
  local rc=$?
  [ -f $FP/last.json ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['tag']=sys.argv[2]; d['uv']=int(sys.argv[3]); d['rc']=int(sys.argv[4]); print(json.dumps(d))" \
      $FP/last.json "$tag" "$UV_THREADPOOL_SIZE" "$rc" >> "$OUT/runs.jsonl"
  return $rc
}
bench_uv() { # bench_uv UV_THREADS TAG ARGS...
  local UV_THREADPOOL_SIZE=$1; shift; export UV_THREADPOOL_SIZE; bench "$@"
}
opencv() { # opencv POOL
  python3 "$C/opencv_baseline.py" $FP/workload.json $FP/pkg "$1" $FP/ocv.json &&
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['tag']='opencv'; print(json.dumps(d))" $FP/ocv.json >> "$OUT/runs.jsonl"
}
package() {
  [ -f $FP/pkg/.made ] && return 0
  rm -rf $FP/pkg
  node $FP/bench-frames.js --prepare-only --source natural --scale "$SCALE" --package $FP/pkg && touch $FP/pkg/.made
}

if [ "$STAGE" = main ] || [ "$STAGE" = all ]; then
  step 60 "qwen tokens vs transformers" python3 "$C/qwen_tokens_transformers.py" "$C/sent_sizes.json" "$OUT/qwen_tokens_transformers.json"
  step 200 "natural package, scale $SCALE" package
  [ -f $FP/pkg/.made ] || { echo "no package: stop"; exit 1; }
  step 120 "bench pool 15: a b c d" bench main --pool 15 --naive-frames 600 --workload-json $FP/workload.json
  step 60 "opencv pool 15" opencv 15
  for p in 1 2 4 8 12 16; do step 60 "bench pool $p: a c d" bench pool --pool $p --phases a,c,d; done
  step 60 "opencv pool 8" opencv 8
fi
if [ "$STAGE" = second ]; then  # what main's runs could not finish ((b) threw on an empty seek, fixed since)
  step 200 "natural package, scale $SCALE" package
  [ -f $FP/pkg/.made ] || { echo "no package: stop"; exit 1; }
  step 120 "bench pool 15: a b c d" bench main --pool 15 --naive-frames 600 --workload-json $FP/workload.json
  step 40 "opencv pool 15" opencv 15
  for p in 1 2 4 8 12 16; do step 50 "bench pool $p: a c" bench pool --pool $p --phases a,c; done
  step 35 "bench pool 15 again: a" bench repeat --pool 15 --phases a
  step 35 "bench pool 15, ffmpeg threads 2: a" bench threads --pool 15 --threads 2 --phases a
  step 35 "bench pool 8, ffmpeg threads 1: a" bench threads --pool 8 --threads 1 --phases a
  step 40 "qwen tokens vs transformers" python3 "$C/qwen_tokens_transformers.py" "$C/sent_sizes.json" "$OUT/qwen_tokens_transformers.json"
fi
if [ "$STAGE" = confirm ]; then  # the tuned default (pool 4) against pool 15, interleaved, 3 times each
  step 40 "qwen tokens vs transformers" python3 "$C/qwen_tokens_transformers.py" "$C/sent_sizes.json" "$OUT/qwen_tokens_transformers.json"
  step 200 "natural package, scale $SCALE" package
  [ -f $FP/pkg/.made ] || { echo "no package: stop"; exit 1; }
  for r in 1 2 3; do for p in 4 15; do step 35 "confirm $r: bench pool $p (default threads): a" bench confirm --pool $p --phases a; done; done
  step 35 "opencv pool 4" opencv 4
fi
if [ "$STAGE" = variants ] || [ "$STAGE" = all ]; then
  step 200 "natural package, scale $SCALE" package
  step 60 "bench pool 15 again: a c" bench repeat --pool 15 --phases a,c
  for t in 1 2 0; do step 45 "bench pool 15, ffmpeg threads $t" bench threads --pool 15 --threads $t --phases a; done
  step 45 "bench pool 8, ffmpeg threads 1" bench threads --pool 8 --threads 1 --phases a
  for uv in 8 32; do step 45 "bench pool 15, UV $uv" bench_uv $uv uv --pool 15 --phases a; done
  for mb in 128 1024; do step 45 "bench pool 15, raw budget $mb MiB" bench budget --pool 15 --raw-budget $mb --phases a; done
  step 45 "opencv pool 4" opencv 4
fi
echo "== done [t=$(( $(date +%s) - T0 )) s]"
[ -f "$OUT/runs.jsonl" ] && python3 - "$OUT/runs.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    if d.get('tag') == 'opencv':
        print(f"opencv pool {d['pool']:>2}: {d['frames_per_s']:8.1f} f/s {d['wall_s']:7.2f} s {d['cores_busy']:5.2f} busy")
        continue
    parts = [f"{k} {d[k]['frames_per_s']:8.1f} f/s {d[k]['wall_s']:6.2f} s {d[k]['cores_busy']:5.2f} busy" for k in 'abcd' if d.get(k)]
    tail = f" rc {d.get('rc')} failed: {d['failed']}" if d.get('failed') else ''
    print(f"{d['tag']:>7} pool {d['pool']:>2} thr {d['ffmpeg_threads']} uv {d['uv']:>2} raw {d['raw_budget_bytes']>>20:>5} MiB: " + ' | '.join(parts) + tail)
PY
