// The engine's state of a run whose ranks share one root on a shared file system (captioning, the cut): the
// unsharded run keeps it in `<root>/<stateDirName>/` itself, rank K of N in `<root>/<stateDirName>/rank-K-of-N/`, so
// ranks never share a lock, a status or a stop file. Any rank's state can be listed read-only from any host.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { RankShard } from '../clips/shard';
import type { RunRoot } from './runRoot';

const RANK_DIR = /^rank-(\d+)-of-(\d+)$/;

export const rankDirName = (s: RankShard) => `rank-${s.index}-of-${s.count}`;

/** The engine's state of one rank (or of the unsharded run, `shard` null) of a root. */
export function rankRunRoot(root: string, stateDirName: string, shard: RankShard | null = null): RunRoot {
  const abs = path.resolve(root);
  const base = path.join(abs, stateDirName);
  const stateDir = shard ? path.join(base, rankDirName(shard)) : base;
  return {
    root: abs,
    stateDir,
    lockFile: path.join(stateDir, 'worker.lock'),
    statusFile: path.join(stateDir, 'status.json'),
    logsDir: path.join(stateDir, 'logs'),
    runnerLog: path.join(stateDir, 'logs', 'runner.log'),
  };
}

/** Every rank's state under the root: the unsharded one if it has a status or a lock, then each rank-K-of-N/ by K. */
export async function listRankRoots(root: string, stateDirName: string): Promise<{ shard: RankShard | null; runRoot: RunRoot }[]> {
  const base = path.join(path.resolve(root), stateDirName);
  const entries = await fs.readdir(base, { withFileTypes: true }).catch(() => []);
  const out: { shard: RankShard | null; runRoot: RunRoot }[] = [];
  const plain = rankRunRoot(root, stateDirName);
  if (entries.some((e) => e.name === path.basename(plain.statusFile) || e.name === path.basename(plain.lockFile))) out.push({ shard: null, runRoot: plain });
  for (const e of entries) {
    const m = e.isDirectory() ? RANK_DIR.exec(e.name) : null;
    if (m) {
      const shard = { index: Number(m[1]), count: Number(m[2]) };
      out.push({ shard, runRoot: rankRunRoot(root, stateDirName, shard) });
    }
  }
  return out.sort((a, b) => (a.shard?.index ?? 0) - (b.shard?.index ?? 0));
}
