// What the hostile tests share: a snapshot of a folder outside a root (every file's bytes, every link's target) taken
// before an attack and compared after it, so a test checks that nothing outside changed, not only an exit code.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Every entry under `dir` (relative path → 'file:<bytes>', 'dir', or 'link:<target>'), read without following links. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name);
      const rel = path.relative(dir, p);
      if (e.isSymbolicLink()) out[rel] = `link:${fs.readlinkSync(p)}`;
      else if (e.isDirectory()) {
        out[rel] = 'dir';
        walk(p);
      } else out[rel] = `file:${fs.readFileSync(p).toString('base64')}`;
    }
  };
  walk(dir);
  return out;
}

const made: string[] = [];

/** A fresh folder under the system's temp folder, removed by `removeHostileDirs`. */
export function hostileDir(prefix: string): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(d);
  return d;
}

export function removeHostileDirs(): void {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}

/** `s` as a regular expression that matches it literally. */
export const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
