// Tests leave the tree as they found it (issue 36 point 5): `save NAME` records the working tree's state — every
// path `git status` lists (changed tracked files and untracked ones that are not ignored) with its content's
// sha256 — into test-output/tree-NAME.json; `check NAME` compares the tree now with it and exits 1 naming each file
// a test changed, added or removed since. `npm test` and `npm run test:e2e` run it around themselves, so a run on a
// tree with edits of one's own passes as long as the tests touched nothing.
//   npx tsx scripts/treeState.ts save|check NAME
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '..');

/** path → sha256 of its content ('' when it is gone), for each path git reports. */
export type TreeState = Record<string, string>;

export function readTreeState(repo = REPO): TreeState {
  const out = execFileSync('git', ['status', '--porcelain=v1', '-z', '--untracked-files=all'], { cwd: repo, encoding: 'utf8' });
  const state: TreeState = {};
  const entries = out.split('\0').filter(Boolean);
  for (let i = 0; i < entries.length; i++) {
    const [xy, file] = [entries[i].slice(0, 2), entries[i].slice(3)];
    if (xy.startsWith('R') || xy.startsWith('C')) i++; // a rename's source path follows it
    const abs = path.join(repo, file);
    state[file] = fs.existsSync(abs) && fs.statSync(abs).isFile() ? createHash('sha256').update(fs.readFileSync(abs)).digest('hex') : '';
  }
  return state;
}

/** Each path whose state differs between `before` and `after`, in words. */
export function treeChanges(before: TreeState, after: TreeState): string[] {
  const paths = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return paths.flatMap((p) => {
    if (before[p] === after[p]) return [];
    if (!(p in before)) return [`${p}: changed by the run (it was as committed before)`];
    if (!(p in after)) return [`${p}: back to its committed state (the run undid an edit)`];
    return [`${p}: its content changed during the run`];
  });
}

function main(argv: string[]): number {
  const [verb, name] = argv;
  if (!['save', 'check'].includes(verb) || !/^[a-z0-9-]+$/.test(name ?? '')) {
    process.stderr.write('usage: tsx scripts/treeState.ts save|check NAME\n');
    return 2;
  }
  const file = path.join(REPO, 'test-output', `tree-${name}.json`);
  if (verb === 'save') {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(readTreeState(), null, 2));
    return 0;
  }
  if (!fs.existsSync(file)) {
    process.stderr.write(`${file} is missing: run \`tsx scripts/treeState.ts save ${name}\` before the tests\n`);
    return 2;
  }
  const changes = treeChanges(JSON.parse(fs.readFileSync(file, 'utf8')) as TreeState, readTreeState());
  if (!changes.length) {
    process.stdout.write(`tree-state ${name}: the tests left the tree as they found it\n`);
    return 0;
  }
  process.stderr.write(`tree-state ${name}: the tests changed the tree (tests must write to test-output/ or a temp dir):\n  ${changes.join('\n  ')}\n`);
  return 1;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
