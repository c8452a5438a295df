// Judge requests (SPEC-AVTIME §6): one per query that needs the judge, built from caption text only.

import { JUDGE_MAX_TOKENS, JUDGE_TEMPERATURE, type JudgePass } from '../constants';
import type { Prediction } from '../normalize';
import type { Axis, Query } from '../queries';
import { canonicalSha256 } from './canonicalJson';
import { AXIS_RUBRICS, renderPredictions, renderReference, renderTemplate } from './prompts';
import type { JudgeTemplate } from './template';
import { type JudgeKind, responseFormat } from './schemas';
import { chatTemplateKwargs } from './mode';

export type JudgeBranch = 'main' | 'pair';

export interface JudgeChatBody {
  model: string;
  messages: [{ role: 'user'; content: string }];
  temperature: number;
  max_tokens: number;
  response_format: ReturnType<typeof responseFormat>;
  chat_template_kwargs: { enable_thinking: boolean };
}

/** One `semantic_requests.jsonl` line. */
export interface JudgeRequestLine {
  query_id: string;
  axis: Axis;
  branch: JudgeBranch;
  video_id: string;
  request_type: JudgeKind;
  pass: JudgePass;
  /** sha256 of the canonical JSON of `body` (so it differs between passes: max_tokens is in the body). */
  request_sha256: string;
  body: JudgeChatBody;
}

export function requestKind(query: Query): JudgeKind {
  switch (query.direction) {
    case 't2e':
      return 't2e_scalar';
    case 'e2t':
      return 'semantic_selector';
    case 'e2e':
      return 'semantic_pair_selector';
  }
}

export function requestBranch(query: Query): JudgeBranch {
  return query.direction === 'e2e' ? 'pair' : 'main';
}

/** Indices (into prediction.events) of the events active at t: start_ms ≤ t < end_ms. */
export function activeEventIds(prediction: Prediction, timeMs: number): number[] {
  const ids: number[] = [];
  prediction.events.forEach((e, i) => {
    if (e.start_ms <= timeMs && timeMs < e.end_ms) ids.push(i);
  });
  return ids;
}

/** A t2e query asks the judge only when ≥ 1 predicted event is active at time_ms; the others always do. */
export function needsJudge(query: Query, prediction: Prediction): boolean {
  return query.direction !== 't2e' || activeEventIds(prediction, query.time_ms).length > 0;
}

/**
 * The predicted events shown to the judge, in event order, numbered from 0 in the prompt: for t2e the active
 * ones (its answer is a score, not indices), for e2t/e2e all of them (so a returned index i is events[i]).
 */
export function shownEventIds(query: Query, prediction: Prediction): number[] {
  return query.direction === 't2e' ? activeEventIds(prediction, query.time_ms) : prediction.events.map((_, i) => i);
}

function referenceCaptions(query: Query): string[] {
  switch (query.direction) {
    case 't2e':
      return query.reference_captions;
    case 'e2t':
      return [query.reference_caption];
    case 'e2e':
      return [query.events[0].caption, query.events[1].caption];
  }
}

export interface BuildJudgeRequestOptions {
  template: JudgeTemplate;
  /** The served model name, sent as `body.model`. */
  model: string;
  pass: JudgePass;
}

export function buildJudgeRequest(query: Query, prediction: Prediction, opts: BuildJudgeRequestOptions): JudgeRequestLine {
  const kind = requestKind(query);
  if (opts.template.kind !== kind) throw new Error(`query ${query.query_id} (${query.direction}) needs a ${kind} template, got ${opts.template.kind}`);
  if (query.video_id !== prediction.video_id) {
    throw new Error(`query ${query.query_id} is about video ${query.video_id}, the prediction about ${prediction.video_id}`);
  }
  const shown = shownEventIds(query, prediction);
  if (shown.length === 0) throw new Error(`query ${query.query_id}: no predicted event to show the judge (check needsJudge first)`);
  const content = renderTemplate(opts.template, {
    axis_rubric: AXIS_RUBRICS[query.axis],
    reference: renderReference(referenceCaptions(query)),
    predictions: renderPredictions(shown.map((i) => prediction.events[i].caption)),
  });
  const body: JudgeChatBody = {
    model: opts.model,
    messages: [{ role: 'user', content }],
    temperature: JUDGE_TEMPERATURE,
    max_tokens: JUDGE_MAX_TOKENS[opts.pass],
    response_format: responseFormat(kind),
    chat_template_kwargs: chatTemplateKwargs(opts.template.mode ?? 'non-thinking'),
  };
  return {
    query_id: query.query_id,
    axis: query.axis,
    branch: requestBranch(query),
    video_id: query.video_id,
    request_type: kind,
    pass: opts.pass,
    request_sha256: canonicalSha256(body),
    body,
  };
}
