// The caption run type's section of the progress tree as rows (no vscode: tested under plain mocha): one row per
// videos root, under it its videos grouped by state (failed first, with their reasons), from the run type's
// progress detail (core/protocols/caption/progressTypes.ts); the grouping is the shared videoStateRows.ts.
import * as path from 'node:path';
import type { CaptionProgressDetail, CaptionVideoEntry } from '../../../core/protocols/caption/progressTypes';
import type { ProgressSnapshot, ProgressState } from '../../../core/protocols/types';
import type { ProtocolSection, TreeRow } from '../../progressNodes';
import { refusedDirsGroup, videoStateGroups } from '../../videoStateRows';

export { MAX_VIDEO_ROWS } from '../../videoStateRows';

/** The root's counts in words: "2 completed, 1 running, 1 failed, 3 pending (2 untracked, 1 refused)". */
export function countsText(d: CaptionProgressDetail): string {
  const aside = [d.untracked.length ? `${d.untracked.length} untracked` : '', d.refused?.length ? `${d.refused.length} refused` : ''].filter(Boolean);
  return `${d.completed} completed, ${d.running} running, ${d.failed} failed, ${d.pending} pending${aside.length ? ` (${aside.join(', ')})` : ''}`;
}

function videoRow(root: string, v: CaptionVideoEntry, icon: ProgressState): TreeRow {
  const clips = v.clips === null ? 'not started' : v.state === 'running' ? `${v.clipsDone}/${v.clips} clips` : `${v.clips} clip${v.clips === 1 ? '' : 's'}`;
  // The backend that made it (issue 35), said once an outcome names one: "gemini · 3 clips".
  const by = v.backend ? `${v.backend}${v.model ? ` ${v.model}` : ''} · ` : '';
  const description = by + (v.state === 'failed' && v.reason ? v.reason : clips);
  return {
    id: `caption:${root}:video:${v.stem}`,
    label: v.stem,
    description,
    aria: `Video ${v.stem} ${v.state}: ${description}`,
    tooltip: v.reason ? `${v.stem}: ${v.reason}` : undefined,
    icon,
    collapsible: 'none',
    // "Open caption viewer" on a video's row opens that video (package.json: viewItem == captionVideo).
    contextValue: 'captionVideo',
    root,
    data: { stem: v.stem },
    children: [],
  };
}

export function captionRootRow(s: ProgressSnapshot<CaptionProgressDetail>): TreeRow {
  const d = s.detail;
  const base = `caption:${s.root}`;
  const groups = [...refusedDirsGroup(base, d.refused ?? []), ...videoStateGroups(base, d.videos, (v, icon) => videoRow(s.root, v, icon))];
  const counts = countsText(d);
  const backends = Object.entries(d.backends ?? {});
  // A root some backend other than vLLM touched says its backends (and Gemini's tokens) in the tooltip.
  const made = backends.some(([b]) => b !== 'vllm')
    ? `\nbackends: ${backends.map(([b, n]) => `${b} ${n}`).join(', ')}${d.tokens?.total ? `; tokens ${d.tokens.total}` : ''}`
    : '';
  return {
    id: base,
    label: `Captions ${path.basename(s.root)}`,
    description: `${s.state}${s.live ? ' (live)' : ''} · ${counts}`,
    aria: `Captions of ${path.basename(s.root)} ${s.state}: ${counts}`,
    tooltip: `${s.root}${made}${d.untracked.length ? `\nuntracked: ${d.untracked.slice(0, 20).join(', ')}` : ''}${s.summary ? `\n${s.summary}` : ''}`,
    icon: s.state,
    collapsible: 'expanded',
    // A live root's row offers Stop; every root's row the caption viewer.
    contextValue: s.live ? 'captionRoot.live' : 'captionRoot',
    root: s.root,
    children: groups,
  };
}

export function captionSection(snapshots: readonly ProgressSnapshot<CaptionProgressDetail>[], protocol: ProtocolSection['protocol']): ProtocolSection {
  return {
    protocol,
    runs: snapshots.length,
    rows: snapshots.map(captionRootRow),
    description: `${snapshots.length} videos root${snapshots.length === 1 ? '' : 's'}`,
  };
}
