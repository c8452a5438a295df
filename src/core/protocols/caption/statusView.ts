// What `fpsweep status --package VIDEOS_ROOT` and `fpsweep stop` say of a videos root: every rank summed
// (total, completed, running, failed with reasons, pending, untracked), read-only.
import type { StatusView, StopResult, StopWords } from '../types';
import type { CaptionView } from './progress';

/** Failed videos shown with their reasons in the text (all of them are in --json). */
const FAILED_SHOWN = 20;

export function formatCaptionView(v: CaptionView): string {
  const d = v.detail;
  const ranks = d.ranks.filter((r) => r.of > 1);
  const lines = [
    `caption ${d.root}: ${v.state}${v.live ? ' (worker alive)' : ''}`,
    `  total ${d.total}, completed ${d.completed}, running ${d.running}, failed ${d.failed}, pending ${d.pending}, untracked ${d.untracked.length}`,
    ...(Object.keys(d.backends ?? {}).some((b) => b !== 'vllm')
      ? [
          `  backends: ${Object.entries(d.backends ?? {})
            .map(([b, n]) => `${b} ${n}`)
            .join(', ')}`,
        ]
      : []),
    ...(d.tokens && d.tokens.total > 0 ? [`  tokens: ${d.tokens.total} (prompt ${d.tokens.prompt}, answers ${d.tokens.candidates})`] : []),
    ...(ranks.length ? [`  ranks: ${ranks.map((r) => `${r.rank + 1}/${r.of}${r.live ? ' live' : ''}`).join(', ')}`] : []),
    ...d.videos.filter((x) => x.state === 'running').map((x) => `  running ${x.stem}: ${x.clipsDone}/${x.clips} clips`),
    ...d.videos
      .filter((x) => x.state === 'failed')
      .slice(0, FAILED_SHOWN)
      .map((x) => `  failed ${x.stem}${x.backend ? ` [${x.backend}]` : ''}: ${x.reason}`),
  ];
  if (d.failed > FAILED_SHOWN) lines.push(`  … ${d.failed - FAILED_SHOWN} more failed (status --json lists them all)`);
  if (d.untracked.length) lines.push(`  untracked (no segments.json): ${d.untracked.slice(0, 10).join(', ')}${d.untracked.length > 10 ? ', …' : ''}`);
  for (const r of d.refused ?? []) lines.push(`  refused ${r.name}: ${r.reason}`);
  if (v.summary) lines.push(`  last: ${v.summary.split('\n').pop()}`);
  return lines.join('\n');
}

export function captionStatusView(v: CaptionView): StatusView {
  const d = v.detail;
  return {
    live: v.live,
    line: `caption: ${d.completed}/${d.total} completed, ${d.running} running, ${d.failed} failed, ${d.pending} pending`,
    text: formatCaptionView(v),
    json: d,
    ok: d.total > 0 && d.completed === d.total,
  };
}

export function captionStopWords(req: StopResult): StopWords {
  // requestStop writes no stop file when no worker holds the lock: a worker starting later is not stopped.
  if (req.pid === null) return { line: 'no caption worker is running here' };
  if (!req.signalled) return { line: `the caption worker (pid ${req.pid}) runs on another host: its next tick reads the stop file; or stop it there`, end: 1 };
  return { line: `asked the caption worker (pid ${req.pid}) to stop: the clips in flight finish and are recorded, no new clip is sent` };
}
