// A throwaway copy of what the structure checks read (src/, media/src/, the configs, package.json's scripts), with
// node_modules linked, so that a test can plant a file and run `npm run lint:…` there: the repository is never
// written, and the copy goes when the test ends.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const REPO = path.resolve(__dirname, '../..');
/** What `npm run lint:deps` and `npm run lint:copies` read. */
const COPIED = ['src', 'media/src', 'media/tsconfig.json', 'tsconfig.json', 'package.json', '.dependency-cruiser.cjs', '.jscpd.json'];

export interface LintCopy {
  dir: string;
  /** Writes `text` at `file` (relative to the copy), folders made as needed. */
  plant(file: string, text: string): void;
  /** `npm run <script>` in the copy: its exit code and what it printed. */
  npmRun(script: string): { status: number | null; output: string };
  remove(): void;
}

export function makeLintCopy(): LintCopy {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fpsweep-lint-'));
  for (const p of COPIED) if (fs.existsSync(path.join(REPO, p))) fs.cpSync(path.join(REPO, p), path.join(dir, p), { recursive: true });
  fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'));
  return {
    dir,
    plant(file, text) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    },
    npmRun(script) {
      const r = spawnSync('npm', ['run', '--silent', script], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 300_000,
        env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
      });
      return { status: r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}` };
    },
    remove() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
