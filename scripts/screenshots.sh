#!/usr/bin/env bash
# `npm run screenshots`: the docs' screenshots made again, from a command of their own (tests leave the tree as they
# found it: the e2e scripts write their shots under test-output/ only). It builds the VSIX once, then runs each e2e
# script that takes docs screenshots with the switch that makes it write them: the findings and the AVTime report
# (run), the caption viewer, the data report, the item inspector and the walkthrough in the light, dark and
# high-contrast themes (FPSWEEP_SCREENSHOTS_DIR, test/e2e/themes.ts). Each shot waits for the state it is about (no
# "Activating Extensions…", no toast, the panel drawn with what it is about) and is taken only once axe and the
# overflow check passed on it (test/e2e/a11y.ts). The shots are staged under test-output/screenshots/ and copied into
# docs/screenshots/ only when every script passed: a failing script changes nothing there, and this command fails.
# Run with no names, it first empties docs/screenshots/ of PNGs, so a shot that no script makes any more is gone (git
# status shows it deleted). The walkthrough's images are SVGs drawn at their size (resources/walkthrough/), not shots.
# About 15 minutes on 2 cores.
# `npm run screenshots -- walkthrough dataReport`: only those scripts' shots (the names of test/e2e/*.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
ALL=(run captionViewer dataReport itemInspector walkthrough)
SCRIPTS=("${@:-${ALL[@]}}")
for script in "${SCRIPTS[@]}"; do
  [[ " ${ALL[*]} " == *" $script "* ]] || { echo "screenshots: no docs shots from '$script' (one of: ${ALL[*]})" >&2; exit 2; }
done
STAGE=test-output/screenshots
rm -rf "$STAGE"
mkdir -p "$STAGE"
bash scripts/e2e-setup.sh
npm run package:vsix
for script in "${SCRIPTS[@]}"; do
  before=$(find "$STAGE" -name '*.png' | wc -l)
  FPSWEEP_SCREENSHOTS_DIR="$STAGE" npx tsx "test/e2e/$script.ts"
  if [ "$(find "$STAGE" -name '*.png' | wc -l)" -le "$before" ]; then
    echo "screenshots: test/e2e/$script.ts passed but wrote no docs shot" >&2
    exit 1
  fi
done
[ $# -gt 0 ] || rm -f docs/screenshots/*.png
mkdir -p docs/screenshots
cp "$STAGE"/*.png docs/screenshots/
echo "screenshots: docs/screenshots/ made again ($(ls "$STAGE" | tr '\n' ' ')); review them with git status and git diff --stat"
