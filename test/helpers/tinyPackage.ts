// A run package with one benchmark of two items (no videos, no results): enough for the verbs that check what
// --package is and read its items first (the flag layer wants an existing run package, issue 41).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Writes the items into `dir` (made); returns `dir`. */
export function tinyPackage(dir: string = fs.mkdtempSync(path.join(os.tmpdir(), 'tiny-package-'))): string {
  fs.mkdirSync(path.join(dir, 'items', 'samples'), { recursive: true });
  const item = (i: number) =>
    JSON.stringify({ item_id: `q${i}`, benchmark: 'MVBench', video_id: `v${i}`, question: 'what?', options: ['a', 'b'], answer: 'A' });
  fs.writeFileSync(path.join(dir, 'items', 'samples', 'MVBench.jsonl'), `${item(1)}\n${item(2)}\n`);
  return dir;
}
