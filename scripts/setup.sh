#!/usr/bin/env bash
# Everything a fresh machine needs before `npm run demo` or `npm test` (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive

# ffmpeg: sample videos and frame decoding. chromium + libkrb5-dev + ripgrep: the end-to-end test in
# code-server (VS Code 1.100.3) driven by playwright-core. python3-scipy + python3-statsmodels: the findings' outside
# reference (test/core/protocols/fp/findings/reference.py, run with /usr/bin/python3). slurm-wlm + munge: the real-Slurm
# integration test of the shipped job scripts (examples/slurm/; test/core/cluster/slurmArray.int.test.ts).
apt_packages=(ffmpeg chromium libkrb5-dev ripgrep python3-scipy python3-statsmodels slurm-wlm munge)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then SUDO=(); else SUDO=(sudo); fi
  "${SUDO[@]}" apt-get update -q
  "${SUDO[@]}" apt-get install -y -q "${missing[@]}"
fi

npm ci --no-audit --no-fund
# code-server for the end-to-end test (cached under .tmp/; skipped when already there).
if [ -f scripts/e2e-setup.sh ] && [ "${FPSWEEP_SKIP_E2E_SETUP:-0}" != "1" ]; then
  bash scripts/e2e-setup.sh
fi
