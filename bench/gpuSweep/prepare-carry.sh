#!/bin/bash
# Fills the folder the device tool carries for the whole-sweep GPU frames bench (issue 45):
#   bash bench/gpuSweep/prepare-carry.sh [CARRY_DIR]        (default /work/main/.gpusweep)
# A device call sends the session's checkout, not a helper's worktree: CARRY_DIR must be an ignored folder of that
# checkout (`echo /.gpusweep/ >> /work/main/.git/info/exclude`). Then, on the device tool:
#   run(command="OUT=$OUT bash .gpusweep/run-on-device.sh", carry=[".gpusweep"], timeout_s=600)
# It holds app.tar.xz (unpacked there with python3's tarfile) with what `fpsweep run` needs on a bare machine:
#   app/bin/node                 this machine's node (x86-64, glibc; v20)
#   app/bin/ffmpeg, ffprobe      ffmpeg 5.1.9 with NVDEC (bench/gpuFrames/prepare-ffmpeg.sh), also the CPU path's
#   app/bin/fake-vllm            the stand-in vLLM's launcher (an instant server: FPSWEEP_STANDIN_LATENCY unset)
#   app/dist/*.js                this worktree's bundles (esbuild.js, not minified), and bench-frames.js: bench/frames.ts
#                                bundled (sharp left out), for the CPU path's floor (decode once + each JPEG once)
#   app/node_modules/            sharp 0.34 and what it loads (@img/*, detect-libc, semver)
#   app/resources/python/fp_gpu_frames.py, app/package.json
# and beside it sweep_bench.py, parts.py, derive.py, run-on-device.sh, hostsim.js (bench/hostSim bundled), fp_gpu_frames.py
# (replaces the app's: a helper edit needs no new app.tar.xz), BUILD (branch, commit, dirty, date).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
CARRY=${1:-/work/main/.gpusweep}
FF=${FF:-/tmp/gpuff/out}
STAGE=${STAGE:-/tmp/gpusweep-stage}
[ -x "$FF/bin/ffmpeg" ] || bash "$REPO/bench/gpuFrames/prepare-ffmpeg.sh" "$FF"
# Not minified (no --production): a run profiled by the bench ("+prof") keeps readable function names; same code.
(cd "$REPO" && node esbuild.js >/dev/null)
rm -rf "$STAGE" && mkdir -p "$STAGE/app/bin" "$STAGE/app/dist" "$STAGE/app/node_modules/@img" "$STAGE/app/resources/python"
cp "$(command -v node)" "$STAGE/app/bin/node"
cp "$FF/bin/ffmpeg" "$FF/bin/ffprobe" "$STAGE/app/bin/"
cp "$REPO/bin/fake-vllm" "$STAGE/app/bin/"
cp "$REPO/dist/cli.js" "$REPO/dist/worker.js" "$REPO/dist/standin-vllm.js" "$STAGE/app/dist/"
(cd "$REPO" && node_modules/.bin/esbuild bench/frames.ts --bundle --platform=node --target=node20 --format=cjs \
  --external:sharp --outfile="$STAGE/app/dist/bench-frames.js" --log-level=warning)
cp "$REPO/package.json" "$STAGE/app/"
cp "$REPO/resources/python/fp_gpu_frames.py" "$REPO/resources/python/fp_nvdec.py" "$STAGE/app/resources/python/"
NM=$REPO/node_modules
cp -a "$NM/sharp" "$NM/detect-libc" "$NM/semver" "$STAGE/app/node_modules/"
cp -a "$NM/@img/colour" "$NM/@img/sharp-linux-x64" "$NM/@img/sharp-libvips-linux-x64" "$STAGE/app/node_modules/@img/"
rm -rf "$STAGE/app/node_modules/sharp/src"
mkdir -p "$CARRY"
(cd "$STAGE" && tar cf - app | xz -T2 -4 > "$CARRY/app.tar.xz")
cp "$REPO/bench/gpuSweep/sweep_bench.py" "$REPO/bench/gpuSweep/parts.py" "$REPO/bench/gpuSweep/derive.py" "$REPO/bench/gpuSweep/nvdec_check.py" "$REPO/bench/gpuSweep/run-on-device.sh" "$REPO/resources/python/fp_gpu_frames.py" "$REPO/resources/python/fp_nvdec.py" "$CARRY/"
# The host model (bench/hostSim), bundled, run there on this run's figures where the call has time left.
(cd "$REPO" && node_modules/.bin/esbuild bench/hostSim/main.ts --bundle --platform=node --target=node20 --format=cjs \
  --external:sharp --external:esbuild --external:vscode --outfile="$CARRY/hostsim.js" --log-level=error)
(cd "$REPO" && echo "$(git rev-parse --abbrev-ref HEAD) $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo +dirty) $(date -u +%FT%TZ)") > "$CARRY/BUILD"
du -sh "$CARRY"/*
