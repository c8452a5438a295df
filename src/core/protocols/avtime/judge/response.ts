// Reading a judge answer (strict: JSON, the kind's schema, indices in range) and deciding when a stored
// response may be reused (SPEC-AVTIME §6).

import type { Axis } from '../queries';
import type { JudgeTemplate } from './template';
import type { JudgeBranch, JudgeRequestLine } from './request';
import { JUDGE_SCHEMAS, type JudgeKind } from './schemas';
import { parseBoundedJson } from '../../../io/boundedJson';

export interface T2EJudgement {
  score: 0 | 1 | 2 | 3 | 4;
}
export interface SelectorJudgement {
  indices: number[];
}
export interface PairJudgement {
  indices_a: number[];
  indices_b: number[];
}
export interface JudgementOf {
  t2e_scalar: T2EJudgement;
  semantic_selector: SelectorJudgement;
  semantic_pair_selector: PairJudgement;
}

export type JudgeFailureReason = 'not_json' | 'schema' | 'index_out_of_range';
export type ParsedJudgement<K extends JudgeKind> = { ok: true; value: JudgementOf[K] } | { ok: false; reason: JudgeFailureReason; detail: string };

const KEYS: Readonly<Record<JudgeKind, readonly string[]>> = {
  t2e_scalar: ['score'],
  semantic_selector: ['indices'],
  semantic_pair_selector: ['indices_a', 'indices_b'],
};

/**
 * `rawText` (the message content) → the judgement, or why it fails: not JSON; not an object with exactly the
 * kind's keys; a number that is not an integer literal (`2.0` and `2e0` too, as JSON.parse would hide them);
 * a score outside 0..4; an index outside [0, nPredicted).
 */
export function parseJudgeResponse<K extends JudgeKind>(kind: K, rawText: string, nPredicted: number): ParsedJudgement<K> {
  let v: unknown;
  try {
    v = parseBoundedJson(rawText);
  } catch (e) {
    return { ok: false, reason: 'not_json', detail: (e as Error).message };
  }
  const fail = (detail: string): ParsedJudgement<K> => ({ ok: false, reason: 'schema', detail });
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return fail('not a JSON object');
  const obj = v as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  const want = [...KEYS[kind]].sort();
  if (keys.join(',') !== want.join(',')) return fail(`keys ${JSON.stringify(keys)}, the schema wants exactly ${JSON.stringify(want)}`);
  // Outside string literals, the only numbers allowed are integers: no fraction, no exponent.
  if (/[.eE]/.test(rawText.replace(/"(?:[^"\\]|\\.)*"/g, '""'))) return fail('a number that is not an integer literal');
  if (kind === 't2e_scalar') {
    const s = obj.score;
    if (typeof s !== 'number' || !Number.isInteger(s) || s < 0 || s > 4) return fail(`score ${JSON.stringify(s)} is not an integer 0..4`);
    return { ok: true, value: { score: s } as JudgementOf[K] };
  }
  for (const k of KEYS[kind]) {
    const xs = obj[k];
    if (!Array.isArray(xs) || !xs.every((x) => typeof x === 'number' && Number.isInteger(x))) return fail(`${k} is not a list of integers`);
    const bad = xs.find((x: number) => x < 0 || x >= nPredicted);
    if (bad !== undefined) return { ok: false, reason: 'index_out_of_range', detail: `${k} holds ${bad}; the predictions are numbered 0..${nPredicted - 1}` };
  }
  return { ok: true, value: obj as unknown as JudgementOf[K] };
}

/** The fields that make a stored response reusable: all must match. */
export interface JudgeResponseIdentity {
  query_id: string;
  axis: Axis;
  branch: JudgeBranch;
  video_id: string;
  request_type: JudgeKind;
  model_id: string;
  prompt_version: string;
  prompt_sha256: string;
  schema_version: string;
  schema_sha256: string;
  request_sha256: string;
}

export const IDENTITY_FIELDS = [
  'query_id',
  'axis',
  'branch',
  'video_id',
  'request_type',
  'model_id',
  'prompt_version',
  'prompt_sha256',
  'schema_version',
  'schema_sha256',
  'request_sha256',
] as const satisfies readonly (keyof JudgeResponseIdentity)[];

/** Reuse a stored response only if every identity field equals the wanted one (a missing field never matches). */
export function responseMatches(stored: Partial<JudgeResponseIdentity>, wanted: JudgeResponseIdentity): boolean {
  return IDENTITY_FIELDS.every((f) => stored[f] !== undefined && stored[f] === wanted[f]);
}

/** The identity a response to `request` carries (and a stored one must equal to be reused). */
export function responseIdentity(request: JudgeRequestLine, template: JudgeTemplate, modelId: string): JudgeResponseIdentity {
  if (template.kind !== request.request_type) throw new Error(`a ${template.kind} template for a ${request.request_type} request`);
  const schema = JUDGE_SCHEMAS[request.request_type];
  return {
    query_id: request.query_id,
    axis: request.axis,
    branch: request.branch,
    video_id: request.video_id,
    request_type: request.request_type,
    model_id: modelId,
    prompt_version: template.prompt_version,
    prompt_sha256: template.prompt_sha256,
    schema_version: schema.schema_version,
    schema_sha256: schema.schema_sha256,
    request_sha256: request.request_sha256,
  };
}
