// The AVTime judge (Qwen3.6-27B in the seed): reads the predicted captions (`${i}. caption`) and the
// reference captions (`- caption`) from the prompt, picks indices and a 0..4 score by word overlap,
// and answers inside the request's JSON schema (response_format json_schema, strict), or in plain
// text without one. Fault knobs: answers too long for 512 tokens, never-JSON answers, an index out of range.
import type { ParsedAvtimeChat } from './body';
import { clampInt, compileSchema, fitArray, schemaProblems, type ObjectSpec } from './jsonSchema';
import type { JudgeKnobs } from './knobs';
import { hashFraction } from './random';

export interface JudgePrompt {
  predictions: string[];
  references: string[];
}

/** `0. caption` lines (numbered from 0, in order) and `- caption` lines, anywhere in the prompt. */
export function readJudgePrompt(text: string): JudgePrompt {
  const predictions: string[] = [];
  const references: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const p = /^(\d+)\. (.+)$/.exec(line);
    if (p && Number(p[1]) === predictions.length) predictions.push(p[2]);
    const r = /^- (.+)$/.exec(line);
    if (r) references.push(r[1]);
  }
  return { predictions, references };
}

const STOP = new Set([
  'a',
  'an',
  'the',
  'is',
  'are',
  'of',
  'in',
  'on',
  'and',
  'to',
  'it',
  'its',
  'with',
  'at',
  'for',
  'from',
  'by',
  'while',
  'be',
  'this',
  'that',
]);

function words(s: string): Set<string> {
  return new Set((s.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => !STOP.has(w)));
}

/** |A ∩ B| / |A ∪ B| over content words. */
export function overlap(a: string, b: string): number {
  const A = words(a);
  const B = words(b);
  let inter = 0;
  for (const w of A) if (B.has(w)) inter++;
  const union = A.size + B.size - inter;
  return union === 0 ? 0 : inter / union;
}

/** A prediction describes a reference when more than half of their joint content words are shared. */
export const SELECT_AT = 0.5;

export function selectFor(reference: string, predictions: readonly string[]): number[] {
  return predictions.flatMap((p, i) => (overlap(reference, p) > SELECT_AT ? [i] : []));
}

/** 0..4: the best overlap of any reference with any prediction, in quarters (rounded). */
export function scoreFor(references: readonly string[], predictions: readonly string[]): number {
  let best = 0;
  for (const r of references) for (const p of predictions) best = Math.max(best, overlap(r, p));
  return Math.round(best * 4);
}

export interface JudgeAnswer {
  content: string;
}

/** Tokens of JSON whitespace that push an answer past the first pass's 512 (and well under 4096). */
const LONG_PADDING = 700;

export function judgeAnswer(parsed: ParsedAvtimeChat, knobs: JudgeKnobs): JudgeAnswer {
  const prompt = readJudgePrompt(parsed.promptText);
  const fmt = parsed.body.response_format;
  const key = parsed.promptText;
  if (knobs.invalidAlways === 1)
    return { content: `I think the closest captions are ${selectFor(prompt.references[0] ?? '', prompt.predictions).join(' and ') || 'none'}.` };
  if (!fmt || fmt.type === 'text') return { content: plainAnswer(prompt) };
  if (fmt.type === 'json_object')
    return {
      content: JSON.stringify({ indices: selectFor(prompt.references[0] ?? '', prompt.predictions), score: scoreFor(prompt.references, prompt.predictions) }),
    };
  const spec = compileSchema(fmt.json_schema.schema);
  const value = valueFor(spec, prompt, hashFraction('outOfRange', key) < knobs.outOfRange);
  const problems = schemaProblems(spec, value);
  if (problems.length) throw new Error(`stand-in judge built an answer outside the schema: ${problems.join('; ')}`);
  const entries = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v).replace(/,/g, ', ')}`);
  if (hashFraction('invalidFirst', key) < knobs.invalidFirst) {
    // A model that rambles in whitespace: valid JSON once whole, cut (invalid) at max_tokens 512.
    return { content: `{${'\n'.repeat(LONG_PADDING)}${entries.join(', ')}}` };
  }
  return { content: `{${entries.join(', ')}}` };
}

/**
 * Integer properties get the score; the k-th array property gets the selection for the k-th
 * reference (the pair selector lists event 0's reference, then event 1's), or for all references
 * when there are fewer. Out-of-range fault: one index past the last prediction, where the schema allows it.
 */
function valueFor(spec: ObjectSpec, prompt: JudgePrompt, outOfRange: boolean): Record<string, number | number[]> {
  const value: Record<string, number | number[]> = {};
  let k = 0;
  for (const { name, spec: p } of spec.properties) {
    if (p.kind === 'integer') {
      value[name] = clampInt(p, scoreFor(prompt.references, prompt.predictions));
      continue;
    }
    const ref = prompt.references[k] ?? prompt.references.join(' ');
    k++;
    const wanted = selectFor(ref, prompt.predictions);
    if (outOfRange) wanted.push(prompt.predictions.length);
    value[name] = fitArray(p, wanted);
  }
  return value;
}

function plainAnswer(prompt: JudgePrompt): string {
  const sel = selectFor(prompt.references[0] ?? '', prompt.predictions);
  return `The matching captions are: ${sel.length ? sel.join(', ') : 'none'}. Score: ${scoreFor(prompt.references, prompt.predictions)}.`;
}
