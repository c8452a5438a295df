// The AVTime-Bench section of the progress tree as rows (no vscode: tested under plain mocha): one row per run,
// its stages, the shards under infer and the passes under judge. Texts: avtimeTreeData.ts; ids as they always were.
import type { AvtimeRunView } from '../../../core/protocols/avtime/progress';
import type { ProtocolSection, TreeRow } from '../../progressNodes';
import { passText, preflightText, runText, shardText, stageText, type NodeText } from './avtimeTreeData';

function row(t: NodeText, id: string, children: TreeRow[] = [], expandable = false): TreeRow {
  return {
    id,
    label: t.label,
    description: t.description,
    aria: t.aria,
    icon: t.state,
    collapsible: expandable || children.length ? 'expanded' : 'none',
    children,
  };
}

export function avtimeRunRow(v: AvtimeRunView): TreeRow {
  const base = `avtime:${v.outputRoot}`;
  const scores = v.scores
    ? `\n${Object.entries(v.scores)
        .map(([k, x]) => `${k} ${x.toFixed(4)}`)
        .join('  ')}`
    : '';
  const stages = v.stages.map((s) => {
    const kids =
      s.name === 'infer'
        ? [
            ...(v.preflight ? [row(preflightText(v.runId, v.preflight), `${base}:preflight`)] : []),
            ...v.shards.map((x) => row(shardText(v.runId, x), `${base}:shard:${x.shard}`)),
          ]
        : s.name === 'judge'
          ? v.passes.map((p) => row(passText(v.runId, p), `${base}:pass:${p.pass}`))
          : [];
    // infer and judge are expandable from the start, even before their shards or passes exist: VS Code keeps the
    // state an id was first shown with, and an item first seen as a leaf would come back collapsed.
    return row(stageText(v.runId, s), `${base}:stage:${s.name}`, kids, s.name === 'infer' || s.name === 'judge');
  });
  return {
    ...row(runText(v), base, stages, true),
    // A live run's row offers Stop (package.json: viewItem == avtimeRun.live).
    contextValue: v.live ? 'avtimeRun.live' : 'avtimeRun',
    root: v.outputRoot,
    tooltip: `${v.outputRoot}${scores}${v.summary ? `\n${v.summary}` : ''}`,
  };
}

export function avtimeSection(runs: readonly AvtimeRunView[], protocol: ProtocolSection['protocol']): ProtocolSection {
  return { protocol, runs: runs.length, rows: runs.map(avtimeRunRow) };
}
