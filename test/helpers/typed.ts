// A command typed from a folder of the user's own: the cwd set to it while the CLI runs in this process (main, as
// `fpsweep` runs it), and the tree under it listed to see what a command created (issue 41).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli, type Captured } from './captureOutput';

/** Every path under `dir` (folders end in '/'), sorted: what a command created, compared before and after. */
export function treeOf(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      out.push(e.isDirectory() ? `${r}/` : r);
      if (e.isDirectory()) walk(path.join(d, e.name), r);
    }
  };
  walk(dir, '');
  return out.sort();
}

/** `fpsweep <args>` with the cwd at `cwd`, as typed there. */
export async function typed(cwd: string, args: string[]): Promise<Captured> {
  const before = process.cwd();
  process.chdir(cwd);
  try {
    return await runCli(args);
  } finally {
    process.chdir(before);
  }
}
