#!/usr/bin/env bash
# `npm run screenshots`: the docs' screenshots made again (issue 36 point 5), the only command that writes into
# docs/screenshots/. Each e2e script below drives code-server as its test does and, with FPSWEEP_SCREENSHOTS_DIR set,
# copies its shots of the caption viewer, the data report and the walkthrough in the light, dark and high-contrast
# themes there (test/e2e/themes.ts); the walkthrough's own images of those panels (resources/walkthrough/) follow.
# The tests themselves write their shots under test-output/ only. A few minutes on 2 cores.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
bash scripts/e2e-setup.sh
npm run package:vsix
export FPSWEEP_SCREENSHOTS_DIR=docs/screenshots
for script in captionViewer dataReport walkthrough; do
  npx tsx "test/e2e/$script.ts"
done
cp docs/screenshots/caption-viewer-dark.png resources/walkthrough/caption-viewer.png
cp docs/screenshots/data-split-report-dark.png resources/walkthrough/data-split-report.png
echo "screenshots: docs/screenshots/ and resources/walkthrough/ updated; review them with git diff --stat"
