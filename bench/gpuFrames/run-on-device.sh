#!/bin/bash
# On the device machine (issue 34): OUT=$OUT bash .gpucarry/run-on-device.sh   (see prepare-carry.sh)
set -u
C=$(cd "$(dirname "$0")" && pwd)
echo "carry: $(cat "$C/BUILD")"
chmod +x "$C/bin/ffmpeg"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
set -o pipefail
python3 "$C/device_bench.py" "$C" "$OUT" "${DEADLINE:-540}" 2>&1 | tee "$OUT/log.txt"
