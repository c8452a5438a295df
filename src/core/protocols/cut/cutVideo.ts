// One video's cut (SPEC-AVTIME-DATA §2): state 'running' → a fresh staging directory → the cutter → the §2
// validator (core/clips/segments.ts) and the degradation check → publish by rename → state 'completed'. Any failure
// removes the staging directory, publishes nothing (an earlier output stays) and records 'failed' with the reason.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Writable } from 'node:stream';
import { issueText, validateVideoDir, type MediaProbe } from '../../clips/segments';
import { logTail, openVideoLog, type Cutter } from './cutter';
import { ContainmentError, removeUnder } from '../../containment/rootFs';
import { openDirUnder } from '../../containment/dirHandle';
import { clearCutterRecord, recordCutter } from './cutterRecords';
import { degradationOf, degradationText } from './degraded';
import type { CutLayout } from './layout';
import type { PlannedVideo } from './plan';
import { finalPathProblem, publishVideoDir, restoreAside } from './publish';
import type { VideoState } from './schemas';
import { writeVideoState } from './videoState';
import { ChildStopped } from '../../media/stoppedChild';

export interface CutVideoContext {
  layout: CutLayout;
  cutter: Cutter;
  allowDegraded: boolean;
  probe: MediaProbe;
  runId: string;
  rank: number | null;
  /** A child of the cut (the cutter, its ffmpeg, the validator's ffprobe) was stopped from outside: the run drains. */
  interrupted?: (why: string) => void;
}

/** Where the cutter left the video directory: `{staging}/<stem>/` (AVCut's --output-root layout) or `{staging}` itself. */
export async function stagedVideoDir(staging: string, stem: string): Promise<string | null> {
  for (const dir of [path.join(staging, stem), staging]) {
    const st = await fs.stat(path.join(dir, 'segments.json')).catch(() => null);
    if (st?.isFile()) return dir;
  }
  return null;
}

async function sameFile(a: string, b: string): Promise<boolean> {
  const [ra, rb] = await Promise.all([fs.realpath(a).catch(() => path.resolve(a)), fs.realpath(b).catch(() => path.resolve(b))]);
  return ra === rb;
}

/** Validates what the cutter staged; returns the directory to publish with its segments and degradation, or why not. */
async function checkStaged(ctx: CutVideoContext, video: PlannedVideo, staging: string, logFile: string) {
  const stem = video.source.stem;
  const dir = await stagedVideoDir(staging, stem);
  if (dir === null) return { ok: false as const, reason: `the cutter wrote no segments.json (looked in ${path.join(staging, stem)} and ${staging})` };
  const { doc, issues } = await validateVideoDir(dir, ctx.probe);
  if (issues.length)
    return {
      ok: false as const,
      reason: `invalid output: ${issues.slice(0, 5).map(issueText).join('; ')}${issues.length > 5 ? ` (+${issues.length - 5} more)` : ''}`,
    };
  if (!(await sameFile(doc!.input_video, video.source.file)))
    return { ok: false as const, reason: `invalid output: ${stem}: input-video: segments.json names ${doc!.input_video}, not the source ${video.source.file}` };
  const log = await fs.readFile(logFile, 'utf8').catch(() => '');
  const degraded = degradationOf(doc!.detectors, log);
  const unexpected = degraded.filter((d) => !ctx.cutter.knownDegraded.includes(d.channel));
  if (unexpected.length && !ctx.allowDegraded)
    return {
      ok: false as const,
      reason:
        `degraded cut: ${degradationText(unexpected)}; install the missing detector on this host (doctor lists AVCut's) ` +
        'or pass --allow-degraded to publish it anyway',
    };
  return { ok: true as const, dir, segments: doc!.segments.length, degraded: degraded.map((d) => d.channel) };
}

export async function cutVideo(ctx: CutVideoContext, video: PlannedVideo, gpu: string | null, signal: AbortSignal): Promise<VideoState> {
  const { layout } = ctx;
  const stem = video.source.stem;
  const base = { stem, source: video.source.file, signature: video.signature, cutter: ctx.cutter.name, runId: ctx.runId, rank: ctx.rank };
  const state = (s: Pick<VideoState, 'state' | 'reason' | 'segments' | 'degraded'>): VideoState => ({ ...base, ...s, at: new Date().toISOString() });
  await restoreAside(layout, stem);
  await writeVideoState(layout, state({ state: 'running', reason: null, segments: 0, degraded: [] }));
  // Earlier attempts' directories go (a crashed run's, an orphaned cutter's); this attempt cuts into its own.
  await removeUnder(layout.root, layout.stemStagingDir(stem), { recursive: true });
  const { staging, mode } = await privateStaging(layout, stem, ctx.runId);
  const logFile = layout.videoLog(stem);
  let log: Writable | null = null;
  let outcome: VideoState;
  try {
    const blocked = await finalPathProblem(layout, stem);
    if (blocked) throw new CutFailed(blocked);
    log = await openVideoLog(layout.root, logFile);
    log.write(
      `# ${ctx.runId} ${new Date().toISOString()} ${stem} (${video.reason}) cutter ${ctx.cutter.name}${gpu === null ? '' : ` CUDA_VISIBLE_DEVICES=${gpu}`}\n`,
    );
    const started = (pgid: number) => recordCutter(layout, stem, pgid, ctx.runId);
    const r = await ctx.cutter.cut({ stem, input: video.source.file, staging, gpu, log, signal, started }).finally(() => clearCutterRecord(layout, stem));
    await new Promise<void>((resolve) => log!.end(resolve));
    log = null;
    if (!r.ok) {
      if (r.interrupted) throw new ChildStopped(r.reason);
      const tail = r.whole ? '' : await logTail(logFile);
      throw new CutFailed(`${r.reason}${tail ? `: ${tail}` : ''} (log ${logFile})`);
    }
    const checked = await checkStaged(ctx, video, staging, logFile);
    if (!checked.ok) throw new CutFailed(checked.reason);
    if (checked.dir === staging) await openUp(layout, staging, mode);
    await publishVideoDir(layout, stem, checked.dir);
    outcome = state({ state: 'completed', reason: null, segments: checked.segments, degraded: checked.degraded });
  } catch (err) {
    if (log) await new Promise<void>((resolve) => log!.end(resolve));
    // A link where the cut's state belongs ends the run (exit 2, the path named), not one video.
    if (err instanceof ContainmentError) throw err;
    await removeUnder(layout.root, layout.stemStagingDir(stem), { recursive: true });
    // Cut short by a stop, ours or one from outside that reached a child of the cut (a scheduler's cancel signals every
    // process of the job; issue 43): no failure; the state stays 'running', read as interrupted (pending), and the
    // next run cuts it again.
    if (err instanceof ChildStopped) ctx.interrupted?.(err.message);
    if (signal.aborted || err instanceof ChildStopped) return state({ state: 'running', reason: null, segments: 0, degraded: [] });
    const reason = err instanceof CutFailed ? err.message : `error: ${(err as Error)?.message ?? String(err)}`;
    outcome = state({ state: 'failed', reason, segments: 0, degraded: [] });
  }
  await writeVideoState(layout, outcome);
  return outcome;
}

class CutFailed extends Error {}

/**
 * The cutter's {staging} (issue 42, point 2): a fresh folder made by us in the video's staging folder, mode 0700 and an
 * unpredictable name (the run's id and 16 random hex), so nothing can be planted where the cutter (or the built-in
 * cutter's ffmpeg) writes, whatever the umask; its result comes in by publishVideoDir's renames under the root.
 */
async function privateStaging(layout: CutLayout, stem: string, runId: string): Promise<{ staging: string; mode: number }> {
  const parent = await openDirUnder(layout.root, layout.stemStagingDir(stem));
  try {
    const own = await parent.privateSub(`${runId}-`);
    await own.close();
    // The mode a folder we make gets here (the umask's): what the published folder is given back.
    return { staging: path.join(layout.stemStagingDir(stem), path.basename(own.real)), mode: (await parent.stat()).mode & 0o777 };
  } finally {
    await parent.close();
  }
}

/** The staged folder (our private one) opened to the others as a folder we make (its mode), before it is published. */
async function openUp(layout: CutLayout, dir: string, mode: number): Promise<void> {
  const d = await openDirUnder(layout.root, dir, { create: false });
  try {
    await d.chmod(mode);
  } finally {
    await d.close();
  }
}
