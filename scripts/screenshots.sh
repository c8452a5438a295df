#!/usr/bin/env bash
# `npm run screenshots`: the docs' screenshots made again, from a command of their own (tests leave the tree as they
# found it: the e2e scripts write their shots under test-output/ only). It builds the VSIX once, then runs each e2e
# script that takes docs screenshots with the switch that makes it write them: the findings and the AVTime report
# (run), the caption viewer, the data report, the item inspector and the walkthrough in the light, dark and
# high-contrast themes (FPSWEEP_SCREENSHOTS_DIR, test/e2e/themes.ts). Each shot waits for the state it is about
# (activation over, the panel drawn) and is taken only once axe and the overflow check passed on it (test/e2e/a11y.ts):
# a script that fails writes no shot of the failing page and this command fails. The walkthrough's images are SVGs
# drawn at their size (resources/walkthrough/), not shots: a window's shot shrunk into a step drew its text 6 px high.
# About 15 minutes on 2 cores.
# `npm run screenshots -- walkthrough dataReport`: only those scripts' shots (the names of test/e2e/*.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
ALL=(run captionViewer dataReport itemInspector walkthrough)
SCRIPTS=("${@:-${ALL[@]}}")
for script in "${SCRIPTS[@]}"; do
  [[ " ${ALL[*]} " == *" $script "* ]] || { echo "screenshots: no docs shots from '$script' (one of: ${ALL[*]})" >&2; exit 2; }
done
bash scripts/e2e-setup.sh
npm run package:vsix
for script in "${SCRIPTS[@]}"; do
  FPSWEEP_SCREENSHOTS_DIR=docs/screenshots npx tsx "test/e2e/$script.ts"
done
echo "screenshots: docs/screenshots/ made again; review them with git diff --stat"
