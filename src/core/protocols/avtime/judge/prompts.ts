// The judge's default prompt templates and axis rubrics (SPEC-AVTIME §1, §6), versioned. A bench root may
// override a template (prompts/judge_<kind>.txt): the caller reads that file and passes its text here.
// The judge sees caption text only, never a timestamp.

import type { Axis } from '../queries';
import { sha256Hex } from './canonicalJson';
import { JUDGE_KINDS, type JudgeKind } from './schemas';
import type { JudgeTemplate } from './template';

export const AXIS_RUBRICS: Readonly<Record<Axis, string>> = {
  A:
    'Axis A (audio): compare only what can be heard: speech and what is said, who speaks, singing, music, ' +
    'sound effects and other sounds. Ignore details that can only be seen.',
  V: 'Axis V (visual): compare only what can be seen: people, objects, actions, places, on-screen text. ' + 'Ignore details that can only be heard.',
};

export const DEFAULT_JUDGE_TEMPLATES: Readonly<Record<JudgeKind, string>> = {
  t2e_scalar: [
    'You grade a video captioning model. At one moment of a video, the reference captions below are true.',
    'The model captions below are the ones the model says are happening at that moment.',
    '{{axis_rubric}}',
    '',
    'Reference captions:',
    '{{reference}}',
    '',
    'Model captions:',
    '{{predictions}}',
    '',
    'Rate how well the model captions, taken together, describe the reference on this axis, as an integer:',
    '0 unrelated or contradictory, 1 barely related, 2 partly the same, 3 mostly the same, 4 the same content.',
    'Answer with JSON only: {"score": <integer 0-4>}',
    '',
  ].join('\n'),
  semantic_selector: [
    'You match events of a video. Below is one reference event and the numbered captions a model predicted.',
    '{{axis_rubric}}',
    '',
    'Reference event:',
    '{{reference}}',
    '',
    'Predicted captions:',
    '{{predictions}}',
    '',
    'List the numbers of every predicted caption that describes the reference event on this axis.',
    'Answer with JSON only: {"indices": [<numbers>]}, or {"indices": []} when none does.',
    '',
  ].join('\n'),
  semantic_pair_selector: [
    'You match events of a video. Below are two reference events, A (the first line) and B (the second line),',
    'and the numbered captions a model predicted.',
    '{{axis_rubric}}',
    '',
    'Reference events:',
    '{{reference}}',
    '',
    'Predicted captions:',
    '{{predictions}}',
    '',
    'List the numbers of every predicted caption that describes event A, and of every one that describes event B,',
    'on this axis. Answer with JSON only: {"indices_a": [<numbers>], "indices_b": [<numbers>]} (an empty list',
    'when none does).',
    '',
  ].join('\n'),
};

const PLACEHOLDERS = ['axis_rubric', 'reference', 'predictions'] as const;
type Placeholder = (typeof PLACEHOLDERS)[number];
const PLACEHOLDER_RE = /\{\{([A-Za-z0-9_]+)\}\}/g;

/**
 * The template for a kind: the default when `text` is undefined, else the bench root's text, checked to hold
 * each placeholder and no other. An override gets its own version, named by its hash.
 */
export function judgeTemplate(kind: JudgeKind, text?: string): JudgeTemplate {
  if (!JUDGE_KINDS.includes(kind)) throw new Error(`unknown judge kind ${JSON.stringify(kind)}`);
  const body = text ?? DEFAULT_JUDGE_TEMPLATES[kind];
  const found = new Set<string>();
  for (const m of body.matchAll(PLACEHOLDER_RE)) found.add(m[1]);
  const unknown = [...found].filter((p) => !(PLACEHOLDERS as readonly string[]).includes(p));
  const missing = PLACEHOLDERS.filter((p) => !found.has(p));
  if (unknown.length > 0 || missing.length > 0) {
    throw new Error(
      `judge template for ${kind}: ${missing.length ? `missing {{${missing.join('}}, {{')}}}` : ''}` +
        `${missing.length && unknown.length ? '; ' : ''}${unknown.length ? `unknown {{${unknown.join('}}, {{')}}}` : ''}` +
        ` (a template holds exactly {{axis_rubric}}, {{reference}} and {{predictions}})`,
    );
  }
  const sha = sha256Hex(body);
  const isDefault = body === DEFAULT_JUDGE_TEMPLATES[kind];
  return { kind, text: body, prompt_version: isDefault ? `avtime-judge-${kind}-v1` : `override-${sha.slice(0, 16)}`, prompt_sha256: sha };
}

/** Predicted captions, one per line, numbered from 0: `0. caption` (the stand-in judge parses this form). */
export function renderPredictions(captions: readonly string[]): string {
  return captions.map((c, i) => `${i}. ${oneLine(c)}`).join('\n');
}

/** Reference captions, one per line: `- caption`. */
export function renderReference(captions: readonly string[]): string {
  return captions.map((c) => `- ${oneLine(c)}`).join('\n');
}

// A caption is one line of the target's answer, but a reference caption could hold a newline: keep one caption
// per line so the numbering cannot be forged by a caption's text.
function oneLine(c: string): string {
  return c.replace(/\r\n|\r|\n/g, ' ');
}

/** One pass over the template, so a caption containing `{{reference}}` is never substituted again. */
export function renderTemplate(template: JudgeTemplate, values: Readonly<Record<Placeholder, string>>): string {
  return template.text.replace(PLACEHOLDER_RE, (_, name: string) => values[name as Placeholder]);
}
