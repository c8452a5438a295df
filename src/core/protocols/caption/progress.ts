// Where a videos root stands (SPEC-AVTIME-DATA §3, Progress), read-only over every rank's files: the tracked and
// untracked directories, each video's outcome file, and each rank's status (its running videos while its worker
// holds its lock). A video is completed or failed by its outcome, running while a live rank lists it, else pending.
import * as path from 'node:path';
import { isWorkerAlive } from '../../runner/control';
import { readStatusFile } from '../../runner/statusFile';
import { mapBounded } from '../../runner/mapBounded';
import { FILE_CALLS_AT_ONCE } from '../../runner/stateRead';
import { videoRunState, videoStatesSnapshot } from '../../runner/videoStates';
import type { ProgressSnapshot, ProgressState } from '../types';
import { discoverVideoDirs } from './discover';
import { CaptionLayout, listRankRoots } from './layout';
import { listOutcomeStems, readVideoOutcome } from './outcome';
import type { CaptionProgressDetail, CaptionRankEntry, CaptionVideoEntry } from './progressTypes';
import { captionStatusSchema, outcomeBackend, type CaptionStatus, type VideoOutcome } from './schemas';
import { shardRankOf } from '../../clips/shard';

export interface CaptionView {
  detail: CaptionProgressDetail;
  live: boolean;
  runId: string | null;
  state: ProgressState;
  /** The last line of the latest ended rank, when none is live. */
  summary: string | null;
}

export async function readCaptionView(root: string): Promise<CaptionView> {
  const abs = path.resolve(root);
  const layout = new CaptionLayout(abs);
  const [dirs, rankRoots, withOutcome] = await Promise.all([discoverVideoDirs(abs), listRankRoots(abs), listOutcomeStems(layout)]);
  const ranks = await Promise.all(
    rankRoots.map(async (r) => ({ ...r, status: await readStatusFile(r.runRoot.statusFile, captionStatusSchema), live: await isWorkerAlive(r.runRoot) })),
  );
  const runningNow = new Map<string, CaptionStatus['running'][number]>();
  for (const r of ranks) if (r.live && r.status) for (const v of r.status.running) runningNow.set(v.stem, v);
  const shardCount = ranks.find((r) => r.shard)?.shard?.count ?? null;
  const outcomes: VideoOutcome[] = [];
  const videos: CaptionVideoEntry[] = await mapBounded(dirs.tracked, FILE_CALLS_AT_ONCE, async (stem): Promise<CaptionVideoEntry> => {
    const o = withOutcome.has(stem) ? await readVideoOutcome(layout, stem) : null;
    const run = runningNow.get(stem);
    const rank = shardCount ? shardRankOf(stem, shardCount) : null;
    // An outcome written before issue 35 names no backend (vLLM's): its entry keeps the shape it had.
    const made = o?.backend ? { backend: o.backend, model: o.model ?? null, tokens: o.tokens?.total ?? null } : {};
    if (o) outcomes.push(o);
    if (run) return { stem, state: 'running', clips: run.clips, clipsDone: run.clipsDone, reason: null, rank, ...made };
    if (o) return { stem, state: o.state, clips: o.clips, clipsDone: o.state === 'completed' ? o.clips : 0, reason: o.reason, rank, ...made };
    return { stem, state: 'pending', clips: null, clipsDone: 0, reason: null, rank, ...made };
  });
  const n = (s: CaptionVideoEntry['state']) => videos.filter((v) => v.state === s).length;
  const rankEntries: CaptionRankEntry[] = ranks.map((r) => ({
    rank: r.shard ? r.shard.index - 1 : 0,
    of: r.shard?.count ?? 1,
    runId: r.status?.runId ?? null,
    live: r.live,
  }));
  const detail: CaptionProgressDetail = {
    root: abs,
    total: videos.length,
    completed: n('completed'),
    running: n('running'),
    failed: n('failed'),
    pending: n('pending'),
    untracked: dirs.untracked,
    refused: dirs.refused,
    videos,
    ranks: rankEntries,
    backends: backendCounts(outcomes),
    tokens: outcomes.reduce(
      (t, o) => (o.tokens ? { prompt: t.prompt + o.tokens.prompt, candidates: t.candidates + o.tokens.candidates, total: t.total + o.tokens.total } : t),
      {
        prompt: 0,
        candidates: 0,
        total: 0,
      },
    ),
  };
  return { detail, ...videoRunState(detail, ranks) };
}

export function captionSnapshot(v: CaptionView): ProgressSnapshot<CaptionProgressDetail> {
  return videoStatesSnapshot('caption', v, v.detail.videos);
}

function backendCounts(outcomes: readonly VideoOutcome[], state?: VideoOutcome['state']): Record<string, number> {
  const out: Record<string, number> = {};
  for (const o of outcomes) if (!state || o.state === state) out[outcomeBackend(o)] = (out[outcomeBackend(o)] ?? 0) + 1;
  return out;
}

/** The completed videos of a root by the backend that made them (the one-backend rule, backends.ts), read-only. */
export async function completedBackends(root: string): Promise<Record<string, number>> {
  const layout = new CaptionLayout(path.resolve(root));
  const stems = [...(await listOutcomeStems(layout))];
  const outcomes = await mapBounded(stems, FILE_CALLS_AT_ONCE, (stem) => readVideoOutcome(layout, stem));
  return backendCounts(
    outcomes.filter((o): o is VideoOutcome => o !== null),
    'completed',
  );
}
