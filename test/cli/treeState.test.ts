// The check that tests leave the tree as found (scripts/treeState.ts, issue 36 point 5), on a scratch git repository:
// a tree with an edit of one's own passes when nothing else moves; a test rewriting a committed screenshot, adding a
// file or undoing an edit is named. (Beside the README check: both guard what a developer runs, `npm test`.)
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readTreeState, treeChanges } from '../../scripts/treeState';

describe('tree state: tests leave the tree as they found it', () => {
  let repo: string;
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'pipe' });
  beforeEach(() => {
    repo = fs.mkdtempSync(path.join(os.tmpdir(), 'fpsweep-tree-'));
    git('init', '-q');
    fs.mkdirSync(path.join(repo, 'docs'));
    fs.writeFileSync(path.join(repo, 'docs', 'shot.png'), 'old');
    fs.writeFileSync(path.join(repo, 'a.ts'), 'a');
    fs.writeFileSync(path.join(repo, '.gitignore'), 'test-output/\n');
    git('add', '.');
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'init');
  });
  afterEach(() => fs.rmSync(repo, { recursive: true, force: true }));

  it('an edit of my own, untouched by the run, and output under an ignored folder: no change', () => {
    fs.writeFileSync(path.join(repo, 'a.ts'), 'my edit');
    const before = readTreeState(repo);
    fs.mkdirSync(path.join(repo, 'test-output'));
    fs.writeFileSync(path.join(repo, 'test-output', 'shot.png'), 'new');
    assert.deepEqual(treeChanges(before, readTreeState(repo)), []);
  });

  it('a committed screenshot rewritten, a file added, an edit changed again: each named', () => {
    fs.writeFileSync(path.join(repo, 'a.ts'), 'my edit');
    const before = readTreeState(repo);
    fs.writeFileSync(path.join(repo, 'docs', 'shot.png'), 'rewritten by a test');
    fs.writeFileSync(path.join(repo, 'docs', 'new.png'), 'x');
    fs.writeFileSync(path.join(repo, 'a.ts'), 'changed again');
    assert.deepEqual(treeChanges(before, readTreeState(repo)), [
      'a.ts: its content changed during the run',
      'docs/new.png: changed by the run (it was as committed before)',
      'docs/shot.png: changed by the run (it was as committed before)',
    ]);
  });
});
