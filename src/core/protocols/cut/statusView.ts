// What `fpsweep status --package OUTPUT_ROOT` and `fpsweep stop` say of a cut: every rank summed (total, completed
// with the degraded ones, running, failed with reasons, pending), read-only.
import type { StatusView, StopResult, StopWords } from '../types';
import type { CutView } from './progress';

/** Failed videos shown with their reasons in the text (all of them are in --json). */
const FAILED_SHOWN = 20;

export function formatCutView(v: CutView): string {
  const d = v.detail;
  const ranks = d.ranks.filter((r) => r.of > 1);
  const degradedBy = [...new Set(d.videos.filter((x) => x.state === 'completed').flatMap((x) => x.degraded))];
  const lines = [
    `cut ${d.root}: ${v.state}${v.live ? ' (worker alive)' : ''}${d.inputRoot ? ` (sources ${d.inputRoot})` : ''}`,
    `  total ${d.total}, completed ${d.completed}, running ${d.running}, failed ${d.failed}, pending ${d.pending}`,
    ...(d.degraded ? [`  DEGRADED: ${d.degraded} of the completed cuts ran without ${degradedBy.join(', ')} (not AVCut's full cut)`] : []),
    ...(ranks.length ? [`  ranks: ${ranks.map((r) => `${r.rank + 1}/${r.of}${r.live ? ' live' : ''}`).join(', ')}`] : []),
    ...(v.problem ? [`  cannot list the sources: ${v.problem}`] : []),
    ...d.videos.filter((x) => x.state === 'running').map((x) => `  running ${x.stem}`),
    ...d.videos
      .filter((x) => x.state === 'failed')
      .slice(0, FAILED_SHOWN)
      .map((x) => `  failed ${x.stem}: ${x.reason}`),
  ];
  if (d.failed > FAILED_SHOWN) lines.push(`  … ${d.failed - FAILED_SHOWN} more failed (status --json lists them all)`);
  const changed = d.videos.filter((x) => x.changed).length;
  if (changed) lines.push(`  ${changed} source(s) changed since their cut: cut again on the next run`);
  if (v.summary) lines.push(`  last: ${v.summary.split('\n').pop()}`);
  return lines.join('\n');
}

export function cutStatusView(v: CutView): StatusView {
  const d = v.detail;
  const degraded = d.degraded ? ` (${d.degraded} degraded)` : '';
  return {
    live: v.live,
    line: `cut: ${d.completed}/${d.total} completed${degraded}, ${d.running} running, ${d.failed} failed, ${d.pending} pending`,
    text: formatCutView(v),
    json: { ...d, state: v.state, problem: v.problem },
    ok: d.total > 0 && d.completed === d.total,
  };
}

export function cutStopWords(req: StopResult): StopWords {
  if (req.pid === null) return { line: 'no cut worker is running here (the stop file is written: a worker starting now stops at once)' };
  if (!req.signalled) return { line: `the cut worker (pid ${req.pid}) runs on another host: its next tick reads the stop file; or stop it there`, end: 1 };
  return { line: `asked the cut worker (pid ${req.pid}) to stop: the cuts under way finish and are published, no new video starts` };
}
