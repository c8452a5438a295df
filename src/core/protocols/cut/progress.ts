// Where an output root stands (SPEC-AVTIME-DATA §2), read-only over every rank's files: the sources of the input root
// the last run read (`run.json`), each video's state file with its source's signature now, and each rank's status
// (its videos under way while its worker holds its lock). Completed while the source is unchanged; running while a
// live rank lists it; failed by its state; else pending (new, changed, or interrupted).
import { promises as fs } from 'node:fs';
import { shardRankOf } from '../../clips/shard';
import { isWorkerAlive } from '../../runner/control';
import { readStatusFile } from '../../runner/statusFile';
import { mapBounded } from '../../runner/mapBounded';
import { FILE_CALLS_AT_ONCE } from '../../runner/stateRead';
import { videoRunState, videoStatesSnapshot } from '../../runner/videoStates';
import type { ProgressSnapshot, ProgressState } from '../types';
import { discoverSources, type SourceVideo } from './discover';
import { CutLayout, listCutRanks } from './layout';
import type { CutProgressDetail, CutRankEntry, CutVideoEntry } from './progressTypes';
import { cutStatusSchema, runFileSchema } from './schemas';
import { listStateStems, readVideoState, sameSignature, sourceSignature } from './videoState';
import { parseBoundedJson } from '../../io/boundedJson';

export interface CutView {
  detail: CutProgressDetail;
  live: boolean;
  runId: string | null;
  state: ProgressState;
  /** The last line of the latest ended rank, when none is live. */
  summary: string | null;
  /** Why the sources could not be listed (the input root moved, a shared stem since), or null. */
  problem: string | null;
}

async function readRunFile(layout: CutLayout) {
  const text = await fs.readFile(layout.runFile, 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    const r = runFileSchema.safeParse(parseBoundedJson(text));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

export async function readCutView(root: string): Promise<CutView> {
  const layout = new CutLayout(root);
  const [run, rankRoots] = await Promise.all([readRunFile(layout), listCutRanks(layout.root)]);
  const ranks = await Promise.all(
    rankRoots.map(async (r) => ({ ...r, status: await readStatusFile(r.runRoot.statusFile, cutStatusSchema), live: await isWorkerAlive(r.runRoot) })),
  );
  let sources: SourceVideo[] = [];
  let problem: string | null = null;
  if (run) sources = await discoverSources(run.inputRoot).catch((err: Error) => ((problem = err.message), []));
  const runningNow = new Set<string>();
  for (const r of ranks) if (r.live && r.status) for (const stem of r.status.running) runningNow.add(stem);
  const shardCount = ranks.find((r) => r.shard)?.shard?.count ?? null;
  // One listing of the states folder: a status opens only the state files there are (a pending video has none).
  const withState = await listStateStems(layout);
  const videos = await mapBounded(sources, FILE_CALLS_AT_ONCE, async (source): Promise<CutVideoEntry> => {
    const [st, sig] = await Promise.all([withState.has(source.stem) ? readVideoState(layout, source.stem) : null, sourceSignature(source.file)]);
    const changed = st !== null && sig !== null && !sameSignature(st.signature, sig);
    const base = {
      stem: source.stem,
      source: source.name,
      rank: shardCount ? shardRankOf(source.stem, shardCount) : null,
      cutter: st?.cutter ?? null,
      changed,
    };
    const none = { segments: 0, degraded: [], reason: null };
    if (runningNow.has(source.stem)) return { ...base, ...none, state: 'running' };
    if (st && !changed && st.state === 'completed') return { ...base, state: 'completed', segments: st.segments, degraded: st.degraded, reason: null };
    if (st && !changed && st.state === 'failed') return { ...base, ...none, state: 'failed', reason: st.reason };
    return { ...base, ...none, state: 'pending' };
  });
  const n = (s: CutVideoEntry['state']) => videos.filter((v) => v.state === s).length;
  const rankEntries: CutRankEntry[] = ranks.map((r) => ({
    rank: r.shard ? r.shard.index - 1 : 0,
    of: r.shard?.count ?? 1,
    runId: r.status?.runId ?? null,
    live: r.live,
  }));
  const detail: CutProgressDetail = {
    root: layout.root,
    inputRoot: run?.inputRoot ?? null,
    total: videos.length,
    completed: n('completed'),
    running: n('running'),
    failed: n('failed'),
    pending: n('pending'),
    degraded: videos.filter((v) => v.state === 'completed' && v.degraded.length > 0).length,
    videos,
    ranks: rankEntries,
  };
  return { detail, ...videoRunState(detail, ranks, problem !== null), problem };
}

export function cutSnapshot(v: CutView): ProgressSnapshot<CutProgressDetail> {
  return videoStatesSnapshot('cut', { ...v, summary: v.problem ?? v.summary }, v.detail.videos);
}
