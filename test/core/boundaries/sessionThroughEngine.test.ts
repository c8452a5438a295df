// Issue 24: every run type runs in the engine's session the one way, withRunSession (open, run, close whatever
// happens), so none keeps its own copy of the open/close order. A run type that calls RunSession.open itself fails here.
// The data jobs (caption, cut) go through runJobInSession, the engine's drain session on withRunSession.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const PROTOCOLS_DIR = path.resolve(__dirname, '../../../src/core/protocols');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

describe('run types open their session through withRunSession (issue 24)', () => {
  it('no file of a run type calls RunSession.open; FP, AVTime, caption and cut call withRunSession (or runJobInSession on it)', () => {
    const files = tsFiles(PROTOCOLS_DIR);
    const opening = files.filter((f) => /RunSession\.open\(/.test(readFileSync(f, 'utf8'))).map((f) => path.relative(PROTOCOLS_DIR, f));
    assert.deepEqual(opening, []);
    const using = files
      .filter((f) => /(withRunSession|runJobInSession)\(/.test(readFileSync(f, 'utf8')))
      .map((f) => path.relative(PROTOCOLS_DIR, f).split(path.sep)[0]);
    assert.deepEqual([...new Set(using)].sort(), ['avtime', 'caption', 'cut', 'fp']);
  });
});
