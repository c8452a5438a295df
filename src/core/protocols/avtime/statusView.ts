// What `fpsweep status` and `fpsweep stop` say about an AVTime output root (SPEC-AVTIME §8), which the registry
// tells apart from a run package by index.ts's findRoots (progress.ts's run markers). The stop itself is the
// engine's (runner/control.ts requestStop: the stop file, and SIGTERM to the lock holder on this host); the
// worker's run session fails closed on it (in-flight requests cut, status "failed", "stopped by …", lock
// released), so a stopped run is continued with --resume or started anew, never drained row by row.
import type { StatusView, StopResult, StopWords } from '../types';
import { SCORE_KEYS } from './constants';
import { waitingWords, type AvtimeRunView } from './progress';

const count = (done: number, todo: number, failed: number) => `${done} done, ${todo} to do, ${failed} failed`;

/** The run's stage progress as lines (what `fpsweep status` prints). */
export function formatAvtimeView(v: AvtimeRunView): string {
  const lines = [
    `AVTime run ${v.runId}: ${v.state}${v.live ? ' (worker alive)' : ''}${v.canonical === false ? ', NON-CANONICAL' : ''} · ${v.outputRoot}`,
    ...v.stages.map((s) => `  ${s.name.padEnd(9)} ${s.state.padEnd(8)} ${count(s.done, s.todo, s.failed)}`),
    ...v.shards.map(
      (s) =>
        `    shard ${s.shard}  ${s.state.padEnd(8)} ${s.written}/${s.expected} written, ${s.failed} failed${s.endpoint ? ` (${s.endpoint})` : ''}` +
        (s.waiting ? ` — ${waitingWords(s.waiting)}` : ''),
    ),
    ...v.passes.map(
      (p) =>
        `    judge pass ${p.pass}${p.maxTokens ? ` (${p.maxTokens} tokens)` : ''} ${p.state.padEnd(8)} ${p.done}/${p.requests} valid, ${p.failed} failed` +
        (p.waiting ? ` — ${waitingWords(p.waiting)}` : ''),
    ),
  ];
  if (v.scores) lines.push(`  scores: ${SCORE_KEYS.map((k) => `${k} ${v.scores![k].toFixed(4)}`).join(' ')}`);
  if (v.summary) lines.push(`  last: ${v.summary}`);
  return lines.join('\n');
}

/** `fpsweep status` on an output root: the stages view, as formatAvtimeView prints it. */
export function avtimeStatusView(v: AvtimeRunView): StatusView {
  const waits = [
    ...v.shards.flatMap((s) => (s.waiting ? [`; shard ${s.shard} ${waitingWords(s.waiting)}`] : [])),
    ...v.passes.flatMap((p) => (p.waiting ? [`; judge pass ${p.pass} ${waitingWords(p.waiting)}`] : [])),
  ];
  return {
    live: v.live,
    // The line `status --wait` prints at each change: a shard waiting on its server is a change worth a line.
    line: `AVTime ${v.runId}: ${v.stages.map((s) => `${s.name} ${s.state}`).join(', ')}${waits.join('')}`,
    text: formatAvtimeView(v),
    json: v,
    ok: v.state === 'done',
  };
}

/** `fpsweep stop`'s line: none running, asked (stop file + SIGTERM), or a worker on another host (exit 1: stop it there). */
export function avtimeStopWords(req: StopResult): StopWords {
  if (req.pid === null) return { line: 'no AVTime worker is running on this output root', end: 0 };
  if (!req.signalled)
    return {
      line:
        `the AVTime worker pid ${req.pid} runs on another host: the stop file is written (seen within a second on shared storage); ` +
        `else stop it there (kill -TERM ${req.pid})`,
      end: 1,
    };
  return { line: `asked AVTime worker pid ${req.pid} to stop (stop file written, SIGTERM sent): in-flight requests are cut, the run ends failed` };
}
