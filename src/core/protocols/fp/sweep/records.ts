// Raw records (SPEC §4) for the three row kinds. Every key is present; what does not apply is null.
import type { RawRecord } from '../package/schemas';
import type { SendPlan } from '../rules/plan';
import { buildPromptText } from '../rules/prompt';
import { predictPromptTokens } from '../rules/qwenTokens';
import type { WorkUnit } from '../plan/types';

const NULL_META: RawRecord['meta'] = {
  n_frames_used: null,
  frame_indices: null,
  timestamps: null,
  short_side: null,
  width: null,
  height: null,
  tokens_per_frame: null,
  capped: null,
  capped_ctx: null,
  n_grid: null,
  n_max: null,
  reused_from: null,
  predicted_prompt_tokens: null,
};

/** The prompt tokens predicted for this unit's request: its frames at the dims sent, and its prompt text. */
export function predictedPromptTokens(unit: WorkUnit, plan: SendPlan): number {
  const dims = plan.width !== null && plan.height !== null ? plan.indices.map(() => ({ width: plan.width!, height: plan.height! })) : [];
  return predictPromptTokens(dims, buildPromptText(unit.item.question, unit.item.options));
}

/** The frame meta of a sent request: exactly what planFrames chose. v_blind: 0 frames, [] indices. */
export function sendMeta(plan: SendPlan, predicted: number): RawRecord['meta'] {
  return {
    n_frames_used: plan.indices.length,
    frame_indices: [...plan.indices],
    timestamps: [...plan.timestamps],
    short_side: plan.shortSide,
    width: plan.width,
    height: plan.height,
    tokens_per_frame: plan.tokensPerFrame,
    capped: plan.capped,
    capped_ctx: plan.cappedCtx,
    n_grid: plan.nGrid,
    n_max: plan.nMax,
    reused_from: null,
    predicted_prompt_tokens: predicted,
  };
}

export function okRecord(
  unit: WorkUnit,
  plan: SendPlan,
  r: {
    response: string;
    pred: string;
    correct: 0 | 1;
    promptTokens: number;
    completionTokens: number;
    latency_s: number;
    endpoint: string;
  },
): RawRecord {
  return {
    benchmark: unit.benchmark,
    item_id: unit.item.item_id,
    condition: unit.condition,
    status: 'ok',
    response: r.response,
    pred: r.pred,
    answer: unit.item.answer,
    correct: r.correct,
    usage: { prompt_tokens: r.promptTokens, completion_tokens: r.completionTokens },
    latency_s: r.latency_s,
    endpoint: r.endpoint,
    ts: new Date().toISOString(),
    meta: sendMeta(plan, predictedPromptTokens(unit, plan)),
  };
}

/** NA (SPEC §2.2): no request; pred, correct, n_frames, prompt_tokens, latency empty. */
export function naRecord(unit: WorkUnit): RawRecord {
  return {
    benchmark: unit.benchmark,
    item_id: unit.item.item_id,
    condition: unit.condition,
    status: 'NA',
    response: null,
    pred: null,
    answer: unit.item.answer,
    correct: null,
    usage: { prompt_tokens: null, completion_tokens: null },
    latency_s: null,
    endpoint: null,
    ts: new Date().toISOString(),
    meta: { ...NULL_META },
  };
}

/**
 * Reuse (SPEC §2.4): pred/correct copied from the source row, meta.reused_from names it, no request
 * (so no usage, latency or endpoint, and no frames of its own: the frame meta stays null).
 */
export function reuseRecord(unit: WorkUnit, from: string, pred: string, correct: string | number, response: string | null): RawRecord {
  const c = Number(correct);
  return {
    benchmark: unit.benchmark,
    item_id: unit.item.item_id,
    condition: unit.condition,
    status: 'reuse',
    response,
    pred,
    answer: unit.item.answer,
    correct: c === 1 ? 1 : c === 0 && String(correct) !== '' ? 0 : null,
    usage: { prompt_tokens: null, completion_tokens: null },
    latency_s: null,
    endpoint: null,
    ts: new Date().toISOString(),
    meta: { ...NULL_META, reused_from: from },
  };
}
