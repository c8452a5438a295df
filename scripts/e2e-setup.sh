#!/usr/bin/env bash
# Installs what the end-to-end test needs: Debian's Chromium, ripgrep, libkrb5-dev, and code-server 4.100.3
# (VS Code 1.100.3 on Node 20) under .tmp/code-server. Idempotent: a finished install is marked and skipped.
# Recipe from docs/DEVELOPERS.md: nothing here downloads a binary outside npm and Debian.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CS_VERSION="4.100.3"
CS_DIR="$ROOT/.tmp/code-server"
MARK="$CS_DIR/.installed-$CS_VERSION"

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v rg >/dev/null 2>&1 || need_apt+=(ripgrep)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
# node-pty and argon2 rebuild from source.
command -v g++ >/dev/null 2>&1 || need_apt+=(g++)
command -v make >/dev/null 2>&1 || need_apt+=(make)
command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "e2e-setup: apt-get install ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if [ -f "$MARK" ]; then
  echo "e2e-setup: code-server $CS_VERSION already installed in $CS_DIR"
  exit 0
fi

mkdir -p "$CS_DIR"
cd "$CS_DIR"
[ -f package.json ] || echo '{"name":"fpsweep-e2e-code-server","private":true}' > package.json
echo "e2e-setup: npm install code-server@$CS_VERSION (scripts off)"
npm install --no-audit --no-fund --ignore-scripts "code-server@$CS_VERSION" >/dev/null

VS="$CS_DIR/node_modules/code-server/lib/vscode"
cd "$VS"
echo "e2e-setup: installing VS Code's own dependencies"
npm install --no-audit --no-fund --omit=dev --ignore-scripts >/dev/null
mkdir -p node_modules/@vscode/ripgrep/bin
cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
echo "e2e-setup: rebuilding native modules (node-pty's compile_commands step may fail harmlessly)"
npm rebuild >/dev/null 2>&1 || true
[ -e node_modules.asar ] || ln -s node_modules node_modules.asar
# The pieces that must have built; fail loudly if not.
for f in node_modules/node-pty/build/Release/pty.node; do
  [ -f "$f" ] || { echo "e2e-setup: missing $VS/$f after rebuild" >&2; exit 1; }
done

cd "$CS_DIR"
echo "e2e-setup: npm rebuild argon2"
npm rebuild argon2 >/dev/null
touch "$MARK"
echo "e2e-setup: done ($CS_DIR)"
