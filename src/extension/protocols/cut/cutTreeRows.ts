// The cut run type's section of the progress tree as rows (no vscode: tested under plain mocha): one row per output
// root (contextValue `cutRun` / `cutRun.live`: the generic Start, Stop and Report act on it), under it its source
// videos grouped by state (videoStateRows.ts: failed first, with their reasons), from the run type's progress detail
// (core/protocols/cut/progressTypes.ts). A degraded cut (a detector unavailable: the builtin cutter always is) says so
// on its video's row and on the root's row.
import * as path from 'node:path';
import { degradedText } from '../../../core/clips/degraded';
import type { CutProgressDetail, CutVideoEntry } from '../../../core/protocols/cut/progressTypes';
import type { ProgressSnapshot, ProgressState } from '../../../core/protocols/types';
import type { ProtocolSection, TreeRow } from '../../progressNodes';
import { videoStateGroups } from '../../videoStateRows';

export type CutSnapshot = ProgressSnapshot<CutProgressDetail>;

/** The root's counts in words: "2 completed (1 degraded), 1 running, 1 failed, 3 pending". */
export function cutCountsText(d: CutProgressDetail): string {
  const degraded = d.degraded ? ` (${d.degraded} degraded)` : '';
  return `${d.completed} completed${degraded}, ${d.running} running, ${d.failed} failed, ${d.pending} pending`;
}

function videoDescription(v: CutVideoEntry): string {
  if (v.state === 'failed') return v.reason ?? 'failed (no reason recorded)';
  const parts: string[] = [];
  if (v.state === 'completed') parts.push(`${v.segments} segment${v.segments === 1 ? '' : 's'}`);
  if (v.changed) parts.push('source changed: cut again');
  const degraded = degradedText(v.degraded);
  if (degraded) parts.push(degraded);
  if (v.cutter) parts.push(v.cutter);
  return parts.join(' · ') || v.source;
}

function videoRow(root: string, v: CutVideoEntry, icon: ProgressState): TreeRow {
  const description = videoDescription(v);
  const tooltip = [
    `${v.stem} (${v.source}): ${v.state}`,
    v.reason,
    degradedText(v.degraded),
    v.cutter && `cutter: ${v.cutter}`,
    v.rank !== null ? `rank ${v.rank}` : null,
  ]
    .filter(Boolean)
    .join('\n');
  return {
    id: `cut:${root}:video:${v.stem}`,
    label: v.stem,
    description,
    aria: `Video ${v.stem} ${v.state}: ${description}`,
    tooltip,
    icon,
    collapsible: 'none',
    // A cut video's directory is a caption video directory: the caption viewer opens it (package.json: cutVideo).
    contextValue: v.state === 'completed' ? 'cutVideo' : 'cutVideo.uncut',
    root,
    data: { stem: v.stem },
    children: [],
  };
}

export function cutRootRow(s: CutSnapshot): TreeRow {
  const d = s.detail;
  const base = `cut:${s.root}`;
  const counts = cutCountsText(d);
  const degraded = d.degraded ? ' · degraded' : '';
  const live = d.ranks.filter((r) => r.live);
  return {
    id: base,
    label: `Cuts ${path.basename(s.root)}`,
    description: `${s.state}${s.live ? ' (live)' : ''}${degraded} · ${counts}`,
    aria: `Cuts into ${path.basename(s.root)} ${s.state}${degraded}: ${counts}`,
    tooltip: [
      `${s.root}${d.inputRoot ? `\nfrom ${d.inputRoot}` : ''}`,
      d.degraded ? `${d.degraded} degraded cut${d.degraded === 1 ? '' : 's'}: a detector unavailable (the builtin cutter always is)` : null,
      live.length && d.ranks.length > 1 ? `live ranks: ${live.map((r) => `${r.rank + 1}/${r.of}`).join(', ')}` : null,
      s.summary,
    ]
      .filter(Boolean)
      .join('\n'),
    icon: s.state,
    collapsible: 'expanded',
    // `<id>Run` / `<id>Run.live`: the extension's Start (resume), Report and Stop on the row (package.json).
    contextValue: s.live ? 'cutRun.live' : 'cutRun',
    root: s.root,
    children: videoStateGroups(base, d.videos, (v, icon) => videoRow(s.root, v, icon)),
  };
}

export function cutSection(snapshots: readonly CutSnapshot[], protocol: ProtocolSection['protocol']): ProtocolSection {
  return {
    protocol,
    runs: snapshots.length,
    rows: snapshots.map(cutRootRow),
    description: `${snapshots.length} output root${snapshots.length === 1 ? '' : 's'}`,
  };
}
