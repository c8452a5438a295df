// The progress of a run over videos that are each completed, running, failed or pending (captioning, the cut),
// summed over its ranks: the run's state and its snapshot with one group, "videos", of one row per state. Pure. The
// engine imports nothing of protocols/ (not even types): the shapes below are the part of ProgressSnapshot they fill,
// and a run type's `ProgressSnapshot<D>` takes them as they are.

/** The states this file gives (a subset of protocols/types.ts's ProgressState). */
type ProgressState = 'todo' | 'running' | 'done' | 'failed' | 'stopped';

export type VideoState = 'completed' | 'running' | 'failed' | 'pending';

export interface VideoStateView<
  D extends { root: string; total: number; completed: number; running: number; failed: number; pending: number },
  S extends string = ProgressState,
> {
  detail: D;
  live: boolean;
  runId: string | null;
  state: S;
  summary: string | null;
}

/** The latest rank status by run id (ids sort by their start), and the run's state from it and the counts. */
export function videoRunState(
  counts: { total: number; completed: number; failed: number },
  ranks: readonly { live: boolean; status: { runId: string; state: string; summary: string | null } | null }[],
  problem = false,
): { live: boolean; runId: string | null; state: ProgressState; summary: string | null } {
  const live = ranks.some((r) => r.live);
  const latest = ranks.filter((r) => r.status).sort((a, b) => (a.status!.runId < b.status!.runId ? 1 : -1))[0]?.status ?? null;
  const state: ProgressState = live
    ? 'running'
    : counts.total > 0 && counts.completed === counts.total
      ? 'done'
      : counts.failed > 0 || problem
        ? 'failed'
        : latest?.state === 'stopped'
          ? 'stopped'
          : 'todo';
  return { live, runId: latest?.runId ?? null, state, summary: live ? null : (latest?.summary ?? null) };
}

export function videoStatesSnapshot<
  D extends { root: string; total: number; completed: number; running: number; failed: number; pending: number },
  S extends string,
>(protocol: string, v: VideoStateView<D, S>, videos: readonly { state: VideoState }[]) {
  const d = v.detail;
  const row = (key: VideoState, state: ProgressState) => {
    const n = videos.filter((x) => x.state === key).length;
    return {
      key,
      label: `${key} (${n})`,
      state,
      done: key === 'completed' ? n : 0,
      todo: key === 'completed' || key === 'failed' ? 0 : n,
      failed: key === 'failed' ? n : 0,
    };
  };
  return {
    protocol,
    root: d.root,
    runId: v.runId,
    live: v.live,
    state: v.state,
    summary: v.summary,
    groups: [
      {
        key: 'videos',
        label: 'videos',
        state: v.state,
        done: d.completed,
        todo: d.running + d.pending,
        failed: d.failed,
        rows: [row('completed', 'done'), row('running', 'running'), row('failed', 'failed'), row('pending', 'todo')],
      },
    ],
    detail: d,
  };
}
