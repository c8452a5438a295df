// One clip's request, as the run's request runner executes it (SPEC-AVTIME-DATA §3, Failures): the body from
// request.ts, sent through the task's channel (the HTTP client retries 429, 5xx, connection errors and timeouts
// with backoff, up to --retries, and never a 400: serving/client.ts); an answer that does not parse is asked
// again, up to --retries more times (sampling is not greedy); every answer or failure is a raw record.
import { createHash } from 'node:crypto';
import type { ChatResult } from '../../serving/client';
import type { TaskChannel } from '../../runner/requestRunner';
import type { SchedServerInfo, TaskOutcome } from '../../runner/scheduler';
import { parseCaptionAnswer } from './answer';
import { buildCaptionRequest, type CaptionRequestBody, type FrameSampling } from './request';
import type { RawRecord } from './schemas';
import type { ClipInput, VideoRun } from './videoRun';

export interface ClipTaskContext {
  runId: string;
  model: string;
  prompt: { text: string; sha256: string };
  sampling: FrameSampling;
  retries: number;
  /** A failed video under --fail-fast ends the run's requests. */
  onVideoFailed(video: VideoRun): void;
}

export function clipRequestBody(ctx: Pick<ClipTaskContext, 'model' | 'prompt' | 'sampling'>, clip: ClipInput, returnTokenIds = false): CaptionRequestBody {
  const v = clip.facts.video;
  if (!v || clip.facts.videoDurationS === null) throw new Error(`internal: ${clip.clipPath} was validated without a video stream`);
  return buildCaptionRequest({
    model: ctx.model,
    clipPath: clip.clipPath,
    sidecarPath: clip.sidecarPath,
    prompt: ctx.prompt.text,
    durationS: clip.facts.videoDurationS,
    totalFrames: v.totalFrames,
    sampling: ctx.sampling,
    returnTokenIds,
  });
}

function rawOf(
  ctx: ClipTaskContext,
  clip: number,
  sha: string,
  attempt: number,
  endpoint: string,
  res: ChatResult,
  status: RawRecord['status'],
  error: string | null,
): RawRecord {
  return {
    run_id: ctx.runId,
    clip,
    request_sha256: sha,
    prompt_sha256: ctx.prompt.sha256,
    attempt,
    http_attempts: res.attempts,
    status,
    http_status: res.ok ? 200 : res.status,
    content: res.ok ? res.text : null,
    error,
    usage: res.ok ? res.usage : null,
    latency_s: res.ok ? res.latency_s : null,
    endpoint,
    ts: new Date().toISOString(),
  };
}

export async function executeClip(
  ctx: ClipTaskContext,
  video: VideoRun,
  clipIndex: number,
  server: SchedServerInfo,
  requeues: number,
  channel: TaskChannel<CaptionRequestBody>,
): Promise<TaskOutcome> {
  // A video that failed already sends no more of its clips: its outcome is decided.
  if (video.failure !== null) return 'done';
  const clip = video.clips[clipIndex];
  const n = clip.segment.index;
  const body = clipRequestBody(ctx, clip);
  const sha = createHash('sha256').update(JSON.stringify(body)).digest('hex');
  for (let attempt = 1; attempt <= ctx.retries + 1; attempt++) {
    const res = await channel.send(server.index, body);
    if (!res.ok) {
      if (channel.judge(server.index, res, requeues, false).action === 'requeue') return 'requeue';
      const refused = res.status !== null && res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429;
      const why = `clip ${n}: ${res.status !== null ? `HTTP ${res.status}` : res.kind}: ${res.message}`;
      await video.record(rawOf(ctx, n, sha, attempt, server.endpoint, res, refused ? 'refused' : 'failed', res.message));
      video.fail(why);
      ctx.onVideoFailed(video);
      return 'done';
    }
    channel.answered(server.index);
    const parsed = parseCaptionAnswer(res.text);
    await video.record(rawOf(ctx, n, sha, attempt, server.endpoint, res, parsed.ok ? 'ok' : 'invalid', parsed.ok ? null : parsed.reason));
    if (parsed.ok) {
      video.accept(n, parsed.events);
      return 'done';
    }
    if (attempt === ctx.retries + 1) {
      video.fail(`clip ${n}: invalid answer after ${attempt} attempts: ${parsed.reason}`);
      ctx.onVideoFailed(video);
    }
  }
  return 'done';
}
