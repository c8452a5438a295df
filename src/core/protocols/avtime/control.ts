// `fpsweep stop` and `fpsweep status` on an AVTime output root (SPEC-AVTIME §8), which the registry tells
// apart from a run package by index.ts's findRoots (progress.ts's run markers); stop is the worker's
// SIGTERM (job.ts: status "failed", "stopped by SIGTERM", lock released; stages are fail-closed, so a
// stopped run is continued with --resume, never drained row by row); status is progress.ts's view.
import * as os from 'node:os';
import * as path from 'node:path';
import { liveLockHolder } from '../../runner/lock';
import type { StatusView, StopResult, StopWords } from '../types';
import { SCORE_KEYS } from './constants';
import { readAvtimeProgress, type AvtimeRunView } from './progress';

export const avtimeLock = (root: string) => ({ lockFile: path.join(root, '.fpsweep', 'worker.lock') });

export interface AvtimeStopRequest {
  pid: number | null;
  /** false: the worker runs on another host (SIGTERM cannot reach it from here). */
  signalled: boolean;
}

export async function requestAvtimeStop(root: string): Promise<AvtimeStopRequest> {
  const holder = await liveLockHolder(avtimeLock(root));
  if (!holder) return { pid: null, signalled: false };
  if (holder.hostname !== os.hostname()) return { pid: holder.pid, signalled: false };
  try {
    process.kill(holder.pid, 'SIGTERM');
    return { pid: holder.pid, signalled: true };
  } catch {
    return { pid: null, signalled: false }; // it exited meanwhile
  }
}

const count = (done: number, todo: number, failed: number) => `${done} done, ${todo} to do, ${failed} failed`;

/** The run's stage progress as lines (what `fpsweep status` prints). */
export function formatAvtimeView(v: AvtimeRunView): string {
  const lines = [
    `AVTime run ${v.runId}: ${v.state}${v.live ? ' (worker alive)' : ''}${v.canonical === false ? ', NON-CANONICAL' : ''} · ${v.outputRoot}`,
    ...v.stages.map((s) => `  ${s.name.padEnd(9)} ${s.state.padEnd(8)} ${count(s.done, s.todo, s.failed)}`),
    ...v.shards.map(
      (s) => `    shard ${s.shard}  ${s.state.padEnd(8)} ${s.written}/${s.expected} written, ${s.failed} failed${s.endpoint ? ` (${s.endpoint})` : ''}`,
    ),
    ...v.passes.map(
      (p) => `    judge pass ${p.pass}${p.maxTokens ? ` (${p.maxTokens} tokens)` : ''} ${p.state.padEnd(8)} ${p.done}/${p.requests} valid, ${p.failed} failed`,
    ),
  ];
  if (v.scores) lines.push(`  scores: ${SCORE_KEYS.map((k) => `${k} ${v.scores![k].toFixed(4)}`).join(' ')}`);
  if (v.summary) lines.push(`  last: ${v.summary}`);
  return lines.join('\n');
}

/** `fpsweep status` on an output root: the stages view, as formatAvtimeView prints it. */
export function avtimeStatusView(v: AvtimeRunView): StatusView {
  return {
    live: v.live,
    line: `AVTime ${v.runId}: ${v.stages.map((s) => `${s.name} ${s.state}`).join(', ')}`,
    text: formatAvtimeView(v),
    json: v,
    ok: v.state === 'done',
  };
}

/** `fpsweep stop`'s line: SIGTERM sent, none running, or a worker on another host (exit 1: stop it there). */
export function avtimeStopWords(req: StopResult): StopWords {
  if (req.pid === null) return { line: 'no AVTime worker is running on this output root', end: 0 };
  if (!req.signalled) return { line: `the AVTime worker pid ${req.pid} runs on another host: stop it there (kill -TERM ${req.pid})`, end: 1 };
  return { line: `asked AVTime worker pid ${req.pid} to stop (SIGTERM sent)` };
}

export { readAvtimeProgress };
