// Test doubles are not product: nothing the VSIX runs (core, CLI, worker, extension) imports the
// stand-ins (src/standins/), and the VSIX's ignore file leaves their bundles out.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

const REPO = path.resolve(__dirname, '../../..');
const PRODUCT = ['src/core', 'src/cli', 'src/worker', 'src/extension'];
const IMPORT = /(?:from\s+|import\s*\(\s*|require\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? tsFiles(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

describe('stand-ins stay out of the product', () => {
  it('no product module imports src/standins/', () => {
    const standins = path.join(REPO, 'src/standins') + path.sep;
    const offenders: string[] = [];
    for (const dir of PRODUCT) {
      for (const f of tsFiles(path.join(REPO, dir))) {
        for (const m of fs.readFileSync(f, 'utf8').matchAll(IMPORT)) {
          const target = path.resolve(path.dirname(f), m[1]);
          if ((target + path.sep).startsWith(standins)) offenders.push(`${path.relative(REPO, f)} imports ${m[1]}`);
        }
      }
    }
    assert.deepEqual(offenders, []);
  });

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
