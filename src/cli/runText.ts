// The verbs' words for a run type that has none of its own (RunProtocol.statusView / describeStop absent):
// the snapshot's groups as lines, and a plain stop line. FP's and AVTime's own words are in their folders.
import type { AnyProtocol, ProgressCounts, ProgressSnapshot, StatusView, StopResult, StopWords } from '../core/protocols/types';

const counts = (c: ProgressCounts) => `${c.done} done, ${c.todo} to do, ${c.failed} failed`;

export function snapshotText(p: AnyProtocol, s: ProgressSnapshot): string {
  const lines = [`${p.title} run ${s.runId ?? '?'}: ${s.state}${s.live ? ' (worker alive)' : ''} · ${s.root}`];
  for (const g of s.groups) {
    lines.push(`  ${g.label} ${g.state}: ${counts(g)}`);
    for (const r of g.rows) lines.push(`    ${r.label} ${r.state}: ${counts(r)}`);
  }
  if (s.summary) lines.push(`  last: ${s.summary}`);
  return lines.join('\n');
}

export async function defaultStatusView(p: AnyProtocol, root: string): Promise<StatusView> {
  const s = await p.readProgress(root);
  return {
    live: s.live,
    line: `${p.title} ${s.runId ?? '?'}: ${s.groups.map((g) => `${g.label} ${g.state}`).join(', ')}`,
    text: snapshotText(p, s),
    json: s,
    ok: s.state === 'done' || s.state === 'stopped',
  };
}

export function defaultStopWords(p: AnyProtocol, root: string, req: StopResult): StopWords {
  if (req.pid === null) return { line: `no ${p.title} worker is running on ${root}`, end: 0 };
  if (!req.signalled) return { line: `the ${p.title} worker pid ${req.pid} could not be asked to stop from here`, end: 1 };
  return { line: `asked ${p.title} worker pid ${req.pid} to stop` };
}
