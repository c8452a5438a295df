#!/usr/bin/env bash
# Screenshots for docs/screenshots/, from a command of their own (tests leave the tree as they found it): builds the
# VSIX once, then runs each e2e script that takes screenshots with FPSWEEP_SCREENSHOTS=1, which makes it write them.
#   bash scripts/screenshots.sh            (after scripts/e2e-setup.sh)
# Today: the item inspector in the light and dark themes (docs/screenshots/item-inspector-{light,dark}.png).
set -euo pipefail
cd "$(dirname "$0")/.."
npm run package:vsix
FPSWEEP_SCREENSHOTS=1 npx tsx test/e2e/itemInspector.ts
