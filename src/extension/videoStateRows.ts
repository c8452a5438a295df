// A root's videos grouped by state as tree rows (no vscode: tested under plain mocha), for every run type whose run
// root is a folder of videos each completed, running, failed or pending: failed first (expanded: their reasons are
// what one looks for), then running, pending, completed. A group lists at most MAX_VIDEO_ROWS videos: a root of
// 50,000 videos stays a tree one can open.
import type { ProgressState } from '../core/protocols/types';
import type { TreeRow } from './progressNodes';

export const MAX_VIDEO_ROWS = 200;

export type VideoState = 'completed' | 'running' | 'failed' | 'pending';

/** The states in the order the tree shows them, each with its icon and its word. */
const STATES: readonly { state: VideoState; icon: ProgressState; word: string }[] = [
  { state: 'failed', icon: 'failed', word: 'failed' },
  { state: 'running', icon: 'running', word: 'running' },
  { state: 'pending', icon: 'todo', word: 'pending' },
  { state: 'completed', icon: 'done', word: 'completed' },
];

/**
 * One group row per state that has videos, under `base` (the root row's id): each video's row made by `videoRow`
 * with its state's icon, the rest of a long group as one "… and N more" row.
 */
export function videoStateGroups<V extends { state: VideoState }>(
  base: string,
  videos: readonly V[],
  videoRow: (v: V, icon: ProgressState) => TreeRow,
): TreeRow[] {
  return STATES.flatMap(({ state, icon, word }) => {
    const inState = videos.filter((v) => v.state === state);
    if (!inState.length) return [];
    const shown = inState.slice(0, MAX_VIDEO_ROWS).map((v) => videoRow(v, icon));
    const more = inState.length - shown.length;
    const rows: TreeRow[] =
      more > 0 ? [...shown, { id: `${base}:${state}:more`, label: `… and ${more} more`, icon: 'info', collapsible: 'none', children: [] }] : shown;
    return [
      {
        id: `${base}:${state}`,
        label: `${inState.length} ${word}`,
        aria: `${inState.length} video(s) ${word}`,
        icon,
        collapsible: state === 'failed' ? 'expanded' : 'collapsed',
        children: rows,
      },
    ];
  });
}

/**
 * Children of a root refused as video directories (issue 33: a symbolic link), as one expanded group row whose rows
 * say why each was refused; none when there are none.
 */
export function refusedDirsGroup(base: string, refused: readonly { name: string; reason: string }[]): TreeRow[] {
  if (!refused.length) return [];
  const rows: TreeRow[] = refused.slice(0, MAX_VIDEO_ROWS).map((r) => ({
    id: `${base}:refused:${r.name}`,
    label: r.name,
    description: r.reason,
    aria: `Directory ${r.name} refused: ${r.reason}`,
    tooltip: `${r.name}: ${r.reason}`,
    icon: 'failed',
    collapsible: 'none',
    children: [],
  }));
  if (refused.length > rows.length)
    rows.push({ id: `${base}:refused:more`, label: `… and ${refused.length - rows.length} more`, icon: 'info', collapsible: 'none', children: [] });
  return [
    {
      id: `${base}:refused`,
      label: `${refused.length} refused`,
      aria: `${refused.length} director${refused.length === 1 ? 'y' : 'ies'} refused`,
      icon: 'failed',
      collapsible: 'expanded',
      children: rows,
    },
  ];
}
