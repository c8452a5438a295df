// Test doubles are not product: the VSIX's ignore file leaves the stand-ins' bundles out. (That no product module
// imports them is the rule product-imports-no-standin of .dependency-cruiser.cjs: dependencyRules.test.ts.)
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

const REPO = path.resolve(__dirname, '../../..');
describe('stand-ins stay out of the product', () => {
  // What vsce itself would pack (its own reading of .vscodeignore: a `!` pattern wins over every ignore, in
  // any order, which a reading of the file's lines cannot see).
  it('the VSIX carries the product bundles and no stand-in', function () {
    this.timeout(120_000);
    const r = spawnSync(path.join(REPO, 'node_modules/.bin/vsce'), ['ls'], { cwd: REPO, encoding: 'utf8', timeout: 110_000 });
    assert.equal(r.status, 0, r.stderr);
    const files = r.stdout.split('\n').filter((f) => f && !f.startsWith('node_modules/'));
    for (const f of ['dist/extension.js', 'dist/cli.js', 'dist/worker.js', 'dist/media/report.js']) assert.ok(files.includes(f), `${f} is packed`);
    assert.deepEqual(
      files.filter((f) => /standin/i.test(f)),
      [],
    );
  });
});
