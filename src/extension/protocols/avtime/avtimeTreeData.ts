// What the progress tree says about AVTime runs, as data (no vscode: tested under plain mocha): the text of
// each node (run, stage, shard, judge pass), in words for screen readers (and the e2e), and which runs changed
// between two reads, so the tree refreshes only those nodes.
import type {
  AvtimePassView,
  AvtimePreflightView,
  AvtimeRunView,
  AvtimeShardView,
  AvtimeStageView,
  AvtimeStepState,
} from '../../../core/protocols/avtime/progress';
import { viewKey, waitingWords } from '../../../core/protocols/avtime/progress';

export interface NodeText {
  label: string;
  description: string;
  /** The accessibility label: the state and counts in words. */
  aria: string;
  state: AvtimeStepState;
}

function counts(done: number, todo: number, failed: number): string {
  return `${done} done, ${todo} todo, ${failed} failed`;
}

export function runText(v: AvtimeRunView): NodeText {
  const scored = v.scores ? ` · T2E-A ${v.scores['T2E-A'].toFixed(3)} …` : '';
  const mode = v.canonical === false ? ' · non-canonical' : '';
  const live = v.live ? ' · live' : '';
  return {
    label: `AVTime ${v.runId}`,
    description: `${v.state}${live}${mode}${scored}`,
    aria: `AVTime run ${v.runId}: ${v.state}${v.live ? ', live' : ''}, ${v.stages.map((s) => `${s.name} ${s.state}`).join(', ')}`,
    state: v.state,
  };
}

export function stageText(runId: string, s: AvtimeStageView): NodeText {
  const parts = [s.state, `${s.done} done`];
  if (s.todo) parts.push(`${s.todo} todo`);
  if (s.failed) parts.push(`${s.failed} failed`);
  return { label: s.name, description: parts.join(' · '), aria: `AVTime ${runId} ${s.name}: ${s.state}, ${counts(s.done, s.todo, s.failed)}`, state: s.state };
}

export function shardText(runId: string, s: AvtimeShardView): NodeText {
  const todo = Math.max(0, s.expected - s.written - s.failed);
  const wait = s.waiting ? ` · ${waitingWords(s.waiting)}` : '';
  return {
    label: `shard ${s.shard}`,
    description: `${s.state} · ${s.written}/${s.expected}${s.failed ? ` · ${s.failed} failed` : ''}${s.endpoint ? ` · ${s.endpoint}` : ''}${wait}`,
    aria: `AVTime ${runId} shard ${s.shard}: ${s.state}, ${counts(s.written, todo, s.failed)} of ${s.expected}${wait}`,
    state: s.state,
  };
}

/** The target pre-flight under infer: each server's placeholder counts against the reference's. */
export function preflightText(runId: string, p: AvtimePreflightView): NodeText {
  const c = (x: { video: number; audio: number } | null) => (x ? `video ${x.video}, audio ${x.audio}` : 'no counts');
  const per = p.servers.map((s) => (s.ok ? c(s.got) : `${c(s.got)} vs reference ${c(s.predicted)}`));
  const said = p.servers.map((s) => `${s.endpoint} ${s.ok ? 'as the reference' : (s.problem ?? 'failed')}`);
  return {
    label: 'pre-flight',
    description: `${p.ok ? 'ok' : 'FAILED'} · ${per.join(' | ')}`,
    aria: `AVTime ${runId} target pre-flight: ${p.ok ? 'ok' : 'failed'}, ${said.join('; ')}`,
    state: p.ok ? 'done' : 'failed',
  };
}

export function passText(runId: string, p: AvtimePassView): NodeText {
  const todo = Math.max(0, p.requests - p.done - p.failed);
  const wait = p.waiting ? ` · ${waitingWords(p.waiting)}` : '';
  return {
    label: `pass ${p.pass}${p.maxTokens !== null ? ` (${p.maxTokens} tokens)` : ''}`,
    description: `${p.state} · ${p.done}/${p.requests} valid${p.failed ? ` · ${p.failed} failed` : ''}${wait}`,
    aria: `AVTime ${runId} judge pass ${p.pass}: ${p.state}, ${counts(p.done, todo, p.failed)} of ${p.requests}${wait}`,
    state: p.state,
  };
}

export interface RunsDiff {
  /** The set of runs changed (one appeared or went): the group node refreshes. */
  setChanged: boolean;
  /** Runs whose view changed (by output root). */
  changed: string[];
}

/** Which runs changed between two reads, by their views' fingerprints. */
export function diffRuns(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, AvtimeRunView>): RunsDiff {
  const setChanged = before.size !== after.size || [...after.keys()].some((k) => !before.has(k));
  const changed = [...after].filter(([root, v]) => before.has(root) && before.get(root) !== viewKey(v)).map(([root]) => root);
  return { setChanged, changed };
}

/** The run to show first (a report, the runbook's status step): a live one, else the latest started. */
export function latestRun(views: readonly AvtimeRunView[]): AvtimeRunView | undefined {
  const live = views.filter((v) => v.live);
  const pool = live.length ? live : views;
  return [...pool].sort((a, b) => (a.startedAt ?? '').localeCompare(b.startedAt ?? '') || a.runId.localeCompare(b.runId)).pop();
}

/** What the runbook's `avtime status` step prints: one line per stage, shard and pass. */
export function formatAvtimeStatus(v: AvtimeRunView): string {
  const lines = [`AVTime run ${v.runId} (${v.outputRoot}): ${v.state}${v.live ? ' (live)' : ''}${v.canonical === false ? ', non-canonical' : ''}`];
  for (const s of v.stages) {
    lines.push(`  ${s.name.padEnd(9)} ${s.state.padEnd(8)} ${counts(s.done, s.todo, s.failed)}`);
    if (s.name === 'infer') for (const x of v.shards) lines.push(`    ${shardText(v.runId, x).label}: ${shardText(v.runId, x).description}`);
    if (s.name === 'judge') for (const p of v.passes) lines.push(`    ${passText(v.runId, p).label}: ${passText(v.runId, p).description}`);
  }
  if (v.scores)
    lines.push(
      `  scores: ${Object.entries(v.scores)
        .map(([k, x]) => `${k} ${x.toFixed(4)}`)
        .join(' ')}`,
    );
  if (v.summary) lines.push(`  ${v.summary}`);
  return lines.join('\n') + '\n';
}
