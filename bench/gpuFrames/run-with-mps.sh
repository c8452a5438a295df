#!/bin/bash
# Run 6 (issue 34): the split phase with NVIDIA's Multi-Process Service on, so the helpers' and the matmul's kernels
# share the GPU without time-sliced context switches. On the device: OUT=$OUT bash .gpucarry/run-with-mps.sh
set -u
C=$(cd "$(dirname "$0")" && pwd)
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
if ! command -v nvidia-cuda-mps-control >/dev/null; then
  echo "no nvidia-cuda-mps-control on this host: MPS not measured" | tee "$OUT/mps.txt"
  exit 0
fi
nvidia-cuda-mps-control -d && echo "MPS daemon started" | tee "$OUT/mps.txt"
PHASES=${PHASES:-env,videos,split} bash "$C/run-on-device.sh"
echo quit | nvidia-cuda-mps-control
cat "$CUDA_MPS_LOG_DIRECTORY"/control.log >> "$OUT/mps.txt" 2>/dev/null
