#!/usr/bin/env bash
# `npm run screenshots`: the docs' screenshots made again, from a command of their own (tests leave the tree as they
# found it: the e2e scripts write their shots under test-output/ only). It builds the VSIX once, then runs each e2e
# script that takes docs screenshots with the switch that makes it write them: the caption viewer, the data report,
# the item inspector and the walkthrough in the light, dark and high-contrast themes (FPSWEEP_SCREENSHOTS_DIR,
# test/e2e/themes.ts). The walkthrough's own images of those panels
# (resources/walkthrough/) follow. A few minutes on 2 cores.
# `npm run screenshots -- walkthrough dataReport`: only those scripts' shots (the names of test/e2e/*.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
ALL=(captionViewer dataReport itemInspector walkthrough)
SCRIPTS=("${@:-${ALL[@]}}")
for script in "${SCRIPTS[@]}"; do
  [[ " ${ALL[*]} " == *" $script "* ]] || { echo "screenshots: no docs shots from '$script' (one of: ${ALL[*]})" >&2; exit 2; }
done
bash scripts/e2e-setup.sh
npm run package:vsix
for script in "${SCRIPTS[@]}"; do
  FPSWEEP_SCREENSHOTS_DIR=docs/screenshots npx tsx "test/e2e/$script.ts"
  case "$script" in
    captionViewer) cp docs/screenshots/caption-viewer-dark.png resources/walkthrough/caption-viewer.png ;;
    dataReport) cp docs/screenshots/data-split-report-dark.png resources/walkthrough/data-split-report.png ;;
  esac
done
echo "screenshots: docs/screenshots/ and resources/walkthrough/ made again; review them with git diff --stat"
