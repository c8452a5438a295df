// The caption run type's worker job (SPEC-AVTIME-DATA §3) on the engine: a RunSession ('drain': a stop lets the
// clips in flight finish and be recorded), the servers (endpoints, or launched per GPU group), the pre-flight, then
// one runner job per video (its clips as tasks) through the engine's RequestRunner. A video is validated before
// any of its requests (its preparation); its outcome is written after its last clip (videoRun.ts). Exit 0 only
// when every selected video is done; 1 when any failed or is left pending; 2 for the user's errors.
import * as path from 'node:path';
import { exitFor, InputError, isUserError } from '../../errors';
import { RequestRunner, type RunnerJob } from '../../runner/requestRunner';
import { MAX_REQUEUES, type FailurePolicy } from '../../runner/requestChannel';
import { fleetServers } from '../../runner/requestServers';
import { runJobInSession } from '../../runner/jobSession';
import { RankTally } from '../../runner/rankStatus';
import { stdoutSessionLog, type RunSession } from '../../runner/runSession';
import type { Fleet } from '../../serving/launcher';
import { unreachableRule } from '../../runner/unreachableRule';
import { executeClip, clipRequestBody, type ClipTaskContext } from './clipTask';
import { ffprobeClipProbe, probeUntilStopped, type ClipMediaFacts } from '../../clips/clipProbe';
import type { CaptionJob } from './jobSchema';
import { CaptionLayout } from './layout';
import { keptWords, planCaptionRun } from './plan';
import { predictClipCounts, runCaptionPreflight } from './preflight';
import { captionPrompt } from './prompt';
import { QWEN_NORMALIZER } from './normalizeGemini';
import type { CaptionRequestBody } from './request';
import { captionStatusSchema } from './schemas';
import { issueText, validateVideoDir, type Segment, sidecarOf } from '../../clips/segments';
import { captionContextTokens, captionFleet } from './servers';
import { VideoRun } from './videoRun';
import { refuseMixedBackends } from './backends';
import { runGeminiInSession } from './gemini/geminiJob';
import { ChildStopped } from '../../media/stoppedChild';

const log = stdoutSessionLog;

export async function runCaptionJob(job: CaptionJob): Promise<number> {
  const layout = new CaptionLayout(job.root, job.shard);
  const run = job.backend === 'gemini' ? runGeminiInSession : runInSession;
  return runJobInSession({ name: 'caption', root: layout.runRoot, tickMs: job.tickMs }, (s) => run(s, job, layout));
}

/** A lost server's clip goes to another server (bounded); with one server, or anything else, it is recorded. */
function captionPolicy(servers: number): FailurePolicy {
  return (f) => (servers > 1 && f.serverLost && !f.pinned && !f.draining && f.requeues < MAX_REQUEUES ? 'requeue' : 'record');
}

async function runInSession(session: RunSession, job: CaptionJob, layout: CaptionLayout): Promise<number> {
  const prompt = captionPrompt(job.prompt.text, job.prompt.source);
  const plan = await planCaptionRun(
    layout,
    { model: job.model, promptSha256: prompt.sha256, sampling: job.sampling },
    job.sourceVideos,
    job.allowMixed && !job.recaption,
  );
  if (plan.missing?.length) throw new InputError(`--source-video matches no tracked video${layout.shard ? ' of this rank' : ''}: ${plan.missing.join(', ')}`);
  refuseMixedBackends(plan.backends, 'vllm', job.allowMixed);
  const rank = layout.shard ? layout.shard.index - 1 : null;
  const tally = new RankTally('caption', plan.selected, plan.done.length);
  const running = new Map<string, VideoRun>();
  const status = session.status(captionStatusSchema, (s) => ({
    ...tally.fields(session, layout.shard, s),
    running: [...running.values()].map((v) => ({ stem: v.stem, clips: v.clipCount, clipsDone: v.clipsDone })),
  }));
  await status.write();
  const rankWords = layout.shard ? ` rank ${layout.shard.index}/${layout.shard.count}` : '';
  await log.info(
    `run ${session.runId}${rankWords}: ${plan.selected} videos selected, ${plan.done.length} done before${keptWords(plan.kept)}, ` +
      `${plan.todo.length} to caption, ` +
      `${plan.untracked.length} untracked directories; model ${job.model}, prompt ${prompt.source} (${prompt.sha256.slice(0, 12)})`,
  );
  // A refused directory (a link) is neither a job nor untracked: said with its reason (issue 33).
  for (const r of plan.refused) await log.warn(`refused ${r.name}: ${r.reason}`);

  let runner: RequestRunner<RunnerJob, CaptionRequestBody> | null = null;
  const videos = new Map<string, VideoRun>();
  const finishing: Promise<void>[] = [];
  const finish = (v: VideoRun) => {
    if (!videos.has(v.stem)) return;
    videos.delete(v.stem);
    finishing.push(
      v.finish(session.runId, rank).then((outcome) => {
        running.delete(v.stem);
        if (outcome === 'completed') tally.completed++;
        else if (outcome === 'failed') {
          tally.failed++;
          void log.error(`${v.stem}: failed: ${v.failure}`);
        }
      }),
    );
  };
  const onVideoFailed = (v: VideoRun) => {
    if (job.failFast) runner?.stop(`--fail-fast: ${v.stem} failed (${v.failure})`);
  };
  // Validation before any of the video's requests: the document, the timeline, then every clip with ffprobe. An
  // ffprobe stopped by a signal from outside (Slurm's scancel signals every process of the job) is no failure of the
  // video (issue 43): false, the video left as it was, and the run drains.
  const probeVideo = async (v: VideoRun): Promise<boolean> => {
    try {
      const probe = probeUntilStopped(ffprobeClipProbe(), () => session.stopRequested !== null);
      const { issues } = await validateVideoDir(v.planned.dir, probe);
      if (issues.length) v.fail(`invalid video directory: ${issues.map(issueText).join('; ')}`);
      else {
        const facts = new Map<string, ClipMediaFacts>();
        // The sidecar's facts too: its audio, not the mp4's track, is what the server decodes (the pre-flight's
        // audio count is the sidecar's; an mp3 decodes a little longer than the AAC it was cut beside).
        for (const s of v.planned.doc!.segments) {
          const file = path.join(v.planned.dir, s.clip_path);
          const sidecar = path.join(v.planned.dir, sidecarOf(s.clip_path));
          facts.set(file, await probe(file));
          facts.set(sidecar, await probe(sidecar));
        }
        v.setClips((file) => facts.get(file)!);
      }
      return true;
    } catch (err) {
      if (!(err instanceof ChildStopped)) throw err;
      session.drain.request(`a child was stopped from outside: ${err.message}`);
      return false;
    }
  };
  const prepared = new Map<string, Promise<boolean>>();
  const prepare = (v: VideoRun): Promise<boolean> => {
    let p = prepared.get(v.stem);
    if (!p) {
      p = (async () => {
        if (v.planned.problem !== null) v.fail(v.planned.problem);
        else if (!(await probeVideo(v))) {
          // Its ffprobe was stopped from outside (a scheduler's cancel): the video stays to do, nothing is written.
          return false;
        }
        if (v.failure !== null) {
          onVideoFailed(v);
          finish(v);
          return false;
        }
        running.set(v.stem, v);
        return true;
      })();
      prepared.set(v.stem, p);
    }
    return p;
  };
  for (const p of plan.todo) videos.set(p.stem, new VideoRun(p, layout, { backend: 'vllm', model: job.model, normalizer: QWEN_NORMALIZER }));
  const order: VideoRun[] = [...videos.values()];
  // Every video of the run by stem, kept after it finishes: a video prepared before the runner (the pre-flight's
  // search, the longest clip) may already be finished and out of `videos` when the runner asks for it (issue 43).
  const byStem = new Map(order.map((v) => [v.stem, v]));

  let userError = false;
  try {
    if (order.length > 0 && !session.stopRequested) {
      const fleet = await startServers(session, job, layout, order, prepare);
      const servers = fleetServers<CaptionRequestBody>(fleet, {
        connections: Math.ceil(job.maxInflightClips / fleet.handles.length) + 1,
        maxRetries: job.retries,
        headersTimeoutMs: job.timeoutS * 1000,
        bodyTimeoutMs: job.timeoutS * 1000,
        baseDelayMs: job.retryBaseDelayMs,
      });
      session.defer(() => servers.close());
      const ctx: ClipTaskContext = { runId: session.runId, model: job.model, prompt, sampling: job.sampling, retries: job.retries, onVideoFailed };
      if (job.preflight) {
        const first = await firstValidClip(order, prepare, () => session.stopRequested !== null);
        if (first) {
          const pf = await runCaptionPreflight(
            servers.senders,
            servers.urls,
            { ...first, body: clipRequestBody(ctx, first.clip) },
            job.sampling,
            { root: layout.root, file: layout.preflightFile },
            session.cutSignal,
          );
          await log.info(pf.line);
          if (!pf.ok) throw new PreflightFailed(pf.line);
        }
      }
      const perServer = Math.max(1, Math.ceil(job.maxInflightClips / fleet.handles.length));
      const reach = job.servers?.mode === 'endpoints' ? unreachableRule(session, fleet, { failDownS: job.failDownS, log: (m) => void log.warn(m) }) : undefined;
      runner = new RequestRunner<RunnerJob, CaptionRequestBody>(
        session,
        servers,
        {
          prepare: (j) => prepare(byStem.get(j.key)!),
          execute: (task, j, server, requeues, channel) => {
            const v = videos.get(j.key);
            return v ? executeClip(ctx, v, Number(task.key.slice(task.key.lastIndexOf('#') + 1)), server, requeues, channel) : Promise.resolve('done');
          },
          jobFinished: (j) => {
            const v = videos.get(j.key);
            if (v) finish(v);
          },
          onFatal: (err) => {
            userError ||= isUserError(err);
            void log.error(`stopping: ${exitFor(err).text}`);
          },
        },
        {
          slots: fleet.handles.map(() => ({ capacity: perServer })),
          prefetch: job.maxJobs,
          prepConcurrency: Math.min(4, job.maxJobs),
          maxOpenVideos: job.maxJobs,
          policy: captionPolicy(fleet.handles.length),
          reach,
        },
      );
      runner.follow(fleet);
      tally.running();
      await status.write();
      // Videos whose document did not parse failed before (no task to send); the rest go as jobs.
      const jobs: RunnerJob[] = [];
      for (const v of order) {
        if (v.planned.doc === null) await prepare(v);
        else
          jobs.push({ key: v.stem, tasks: v.planned.doc.segments.map((s, i) => ({ key: `${v.stem}#${i}`, group: `${v.stem}#${i}`, cost: s.duration_sec })) });
      }
      await runner.run(jobs);
    }
    // Prepared videos the runner never finished (a stop, --fail-fast): what they reached is written.
    for (const v of [...videos.values()]) if (prepared.has(v.stem)) finish(v);
    await Promise.all(finishing);
    tally.end(session.stopRequested !== null || (runner?.stopped ?? null) !== null);
  } catch (err) {
    for (const v of [...videos.values()]) if (prepared.has(v.stem)) finish(v);
    await Promise.allSettled(finishing);
    tally.breakOff(err instanceof PreflightFailed ? err.message : `failed: ${(err as Error)?.message ?? String(err)}`);
    userError ||= isUserError(err);
  }
  await log.info(tally.summary!);
  await status.write(tally.summary);
  // The user's error (a link planted where the run's state belongs): 2, as every bad input.
  return tally.state === 'done' ? 0 : userError ? 2 : 1;
}

class PreflightFailed extends Error {}

/** The first video (in order) that validates, and its first clip: the pre-flight's request. */
async function firstValidClip(order: readonly VideoRun[], prepare: (v: VideoRun) => Promise<boolean>, stopped: () => boolean) {
  for (const v of order) {
    // A stop ends the search: it would prepare (probe) the videos one by one while the run drains.
    if (stopped()) return null;
    if (v.planned.doc === null) continue;
    if (await prepare(v)) return { name: `${v.stem} clip ${v.clips[0].segment.index}`, clip: v.clips[0], facts: v.clips[0].facts };
  }
  return null;
}

/** Endpoints as given, or the launched fleet; in managed mode the context is sized from the longest clip. */
async function startServers(
  session: RunSession,
  job: CaptionJob,
  layout: CaptionLayout,
  order: readonly VideoRun[],
  prepare: (v: VideoRun) => Promise<boolean>,
): Promise<Fleet> {
  let context = 0;
  if (job.servers?.mode === 'managed') {
    // The longest clip by segments.json, probed: its predicted media tokens size --max-model-len.
    let longest: { v: VideoRun; seg: Segment } | null = null;
    for (const v of order) for (const s of v.planned.doc?.segments ?? []) if (!longest || s.duration_sec > longest.seg.duration_sec) longest = { v, seg: s };
    if (longest && (await prepare(longest.v))) {
      const clip = longest.v.clips.find((c) => c.segment.index === longest!.seg.index)!;
      const p = predictClipCounts(clip.facts, job.sampling);
      context = captionContextTokens(p.predicted.video + p.predicted.audio);
    } else context = captionContextTokens(0);
  }
  const fleet = await captionFleet(job, layout, context, (l) => void log.info(l), session.cutSignal);
  session.defer(() => fleet.stop());
  session.stopper.endpointUrls = fleet.handles.map((h) => h.url);
  return fleet;
}
