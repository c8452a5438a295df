// One target row through the request runner: the reference's plan for its video, AVTime-Bench's target request
// (./targetRequest.ts), and its raw line or its error. AVTime's shards (./infer.ts) and the direct DVC runner
// (../data/dvc/infer.ts) both send through here, so the request and the raw line exist once.
import type { SchedServerInfo } from '../../../runner/scheduler';
import type { TaskChannel } from '../../../runner/requestRunner';
import type { TargetPlan } from '../../../serving/models/qwen3Omni/videoPlan';
import type { RawPrediction } from './rawPrediction';
import { buildTargetRequest, type TargetRequestBody } from './targetRequest';

export interface TargetRow {
  id: string;
  video_id: string;
  /** The one video, an absolute path. */
  video: string;
  /** The text after the video: the frozen target prompt, or (DVC --prompt-style jsonl) the row's own. */
  prompt: string;
}

export interface TargetAsk {
  model: string;
  audioInVideo: boolean;
  planFor: (videoPath: string) => Promise<TargetPlan>;
}

export type RowError = { id: string; kind: string; message: string };

/** `requeue`: lost with its server, send it again; otherwise the row's raw line or its error. */
export type TargetRowOutcome = { kind: 'answer'; line: RawPrediction } | { kind: 'error'; error: RowError } | { kind: 'requeue' };

export async function askTarget(
  row: TargetRow,
  ask: TargetAsk,
  server: SchedServerInfo,
  requeues: number,
  channel: TaskChannel<TargetRequestBody>,
): Promise<TargetRowOutcome> {
  const plan = await ask.planFor(row.video).then(
    (p) => ({ ok: true as const, p }),
    (err: Error) => ({
      ok: false as const,
      kind: 'request' as const,
      message: `reference preprocessing of ${row.video}: ${err.message}`,
      attempts: 0,
      status: null,
    }),
  );
  const res = plan.ok ? await channel.send(server.index, buildTargetRequest(ask.model, row.video, row.prompt, ask.audioInVideo, plan.p)) : plan;
  if (res.ok) {
    channel.answered(server.index);
    return {
      kind: 'answer',
      line: {
        id: row.id,
        video_id: row.video_id,
        response: res.text,
        finish_reason: res.finishReason,
        usage: res.usage,
        latency_s: Math.round(res.latency_s * 1e6) / 1e6,
        endpoint: server.endpoint,
        ts: new Date().toISOString(),
      },
    };
  }
  // Cut (by another row's error, or by the run's stop): not this row's error.
  if (channel.judge(server.index, res, requeues, false).action === 'requeue') return { kind: 'requeue' };
  return { kind: 'error', error: { id: row.id, kind: res.kind, message: res.message } };
}
