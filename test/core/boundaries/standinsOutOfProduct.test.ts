// Test doubles are not product: nothing the VSIX runs (core, CLI, worker, extension) imports the
// stand-ins (src/standins/), and the VSIX's ignore file leaves their bundles out.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

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

  it('the VSIX leaves the stand-in bundles out', () => {
    const lines = fs
      .readFileSync(path.join(REPO, '.vscodeignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim());
    assert.ok(lines.includes('dist/standin-*.js'), '.vscodeignore must list dist/standin-*.js');
    const carried = lines.lastIndexOf('!dist/**');
    assert.ok(carried >= 0 && lines.indexOf('dist/standin-*.js') > carried, 'the exclusion must come after !dist/**');
  });
});
