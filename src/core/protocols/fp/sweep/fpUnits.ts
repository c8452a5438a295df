// Frames × Pixels's part of the sweep: each video of the plan as a scheduler job whose tasks are its
// todo units; a job's preparation (frame plans, then the frames of each request); and one unit's
// round trip: unit → request → answer → rows (its own, then the reuse rows waiting on its answer).
// Sending, re-queueing and the failure rules are the engine's (runner/requestChannel.ts).
import type { PackageLayout } from '../package/layout';
import { unitKey } from '../package/unitKey';
import type { PrepOutcome } from '../../../runner/failFast';
import type { FrameSource, PreparedVideoFrames } from './frameSource';
import type { RequestChannel } from '../../../runner/requestChannel';
import type { SchedServerInfo, SchedTask, SchedJob, TaskOutcome } from '../../../runner/scheduler';
import { loadVideoFramePlans, type VideoWork, type WorkUnit } from '../plan';
import { parseAnswerLetter, scoreAnswer } from '../rules/answer';
import type { SendPlan } from '../rules/plan';
import type { FpOutcomes } from './fpOutcomes';
import { okRecord, reuseRecord } from './records';
import { unitRequestBody } from './unitRequest';

export interface VideoJob extends SchedJob {
  work: VideoWork;
  units: Map<string, WorkUnit>;
  plans: Map<string, SendPlan> | null;
  prepared: PreparedVideoFrames | null;
}

/** One job per video; a task per unit, grouped by condition (a group's requests share their frames). */
export function videoJobs(videos: readonly VideoWork[]): VideoJob[] {
  return videos.map((work) => {
    const units = new Map<string, WorkUnit>();
    const tasks: SchedTask[] = [];
    for (const u of work.units) {
      const key = unitKey(u.benchmark, u.item.item_id, u.condition);
      units.set(key, u);
      tasks.push({
        key,
        group: `${work.hash}\u0000${u.condition}`,
        cost: Math.max(1, Number.isFinite(u.predictedPromptTokens) ? u.predictedPromptTokens! : 1),
      });
    }
    return { key: work.hash, tasks, work, units, plans: null, prepared: null };
  });
}

export class FpUnits {
  constructor(
    private readonly layout: PackageLayout,
    private readonly frames: FrameSource,
    private readonly outcomes: FpOutcomes,
    private readonly run: {
      servedModel: string;
      channel: RequestChannel;
      /** The video as one decode outcome, for the fail-fast monitor (a broken ffmpeg fails them all). */
      videoDecoded(o: PrepOutcome): void;
      /** An answer with its frame count and prompt tokens, for the throughput. */
      answered(frames: number, tokens: number): void;
      /** ffmpeg was stopped by a signal from outside: the run is being stopped (it drains). */
      interrupted(why: string): void;
    },
  ) {}

  /** Frame plans, then frames; requests whose frames could not be made fail here. False: nothing to send. */
  async prepare(job: VideoJob): Promise<boolean> {
    const fp = await loadVideoFramePlans(this.layout, job.work);
    if (fp.kind !== 'ok') {
      for (const u of job.work.units) await this.outcomes.fail(u, fp.kind, fp.message, null, 0);
      return false;
    }
    job.plans = fp.plans;
    const requests = job.tasks.map((t) => ({ key: t.key, plan: fp.plans.get(job.units.get(t.key)!.condition)! }));
    job.prepared = await this.frames.prepare(job.work.hash, fp.meta, requests);
    const kept: SchedTask[] = [];
    let decoded = false;
    let decodeFailure: string | null = null;
    for (const t of job.tasks) {
      const r = job.prepared.get(t.key);
      if (r.ok) {
        kept.push(t);
        if (r.nFrames > 0) decoded = true;
      } else if (r.kind === 'interrupted') {
        // Not the video's failure (issue 43): its units stay to do, nothing is logged, and the run drains.
        this.run.interrupted(r.message);
      } else {
        if (r.kind === 'decode') decodeFailure ??= r.message;
        await this.outcomes.fail(job.units.get(t.key)!, r.kind, r.message, null, 0, r.decodeS);
      }
    }
    if (decoded || decodeFailure !== null) this.run.videoDecoded(decoded ? { ok: true } : { ok: false, message: decodeFailure! });
    job.tasks = kept;
    if (kept.length === 0) job.prepared.release();
    return kept.length > 0;
  }

  async execute(task: SchedTask, job: VideoJob, server: SchedServerInfo, requeues: number): Promise<TaskOutcome> {
    const u = job.units.get(task.key)!;
    const plan = job.plans!.get(u.condition)!;
    const fr = job.prepared!.get(task.key);
    if (!fr.ok) throw new Error(`internal: request ${task.key} has no frames`);
    const images = await fr.images();
    const channel = this.run.channel;
    const res = await channel.send(server.index, unitRequestBody(this.run.servedModel, u, images));
    if (res.ok) {
      channel.answered(server.index);
      const pred = parseAnswerLetter(res.text);
      const correct = scoreAnswer(pred, u.item.answer);
      const rec = okRecord(u, plan, {
        response: res.text,
        pred,
        correct,
        promptTokens: res.usage.prompt_tokens,
        completionTokens: res.usage.completion_tokens,
        latency_s: res.latency_s,
        endpoint: server.endpoint,
      });
      this.run.answered(images.length, res.usage.prompt_tokens);
      await this.outcomes.writeRow(u, rec, { latency_s: res.latency_s, decode_s: fr.decodeS, prompt_tokens: res.usage.prompt_tokens });
      job.prepared!.release(task.key);
      for (const d of u.dependents ?? []) await this.outcomes.writeRow(d, reuseRecord(d, u.condition, pred, correct, res.text));
      return 'done';
    }
    // A refusal the plan predicted (SPEC §2.5) is an answer, not a sign of a broken setup.
    const verdict = channel.judge(server.index, res, requeues, res.kind === 'context' && u.contextRefusal === true);
    if (verdict.action === 'requeue') return 'requeue';
    if (verdict.contextTooSmall) {
      await this.outcomes.fail(u, 'context', res.message, server.endpoint, res.attempts);
      return 'done';
    }
    await this.outcomes.fail(u, res.kind, res.message, server.endpoint, res.attempts + requeues, fr.decodeS);
    job.prepared!.release(task.key);
    return 'done';
  }

  videoFinished(job: VideoJob): void {
    job.prepared?.release();
    job.prepared = null;
    job.plans = null;
  }
}
