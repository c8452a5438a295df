// The judge's three request kinds and their strict response schemas (SPEC-AVTIME §6), fixed and versioned.

import { canonicalSha256 } from './canonicalJson';

export const JUDGE_KINDS = ['t2e_scalar', 'semantic_selector', 'semantic_pair_selector'] as const;
export type JudgeKind = (typeof JUDGE_KINDS)[number];

const indexList = { type: 'array', items: { type: 'integer', minimum: 0 } } as const;

/** JSON Schemas for `response_format.json_schema.schema`: closed objects, every key required. */
const SCHEMAS = {
  t2e_scalar: {
    type: 'object',
    properties: { score: { type: 'integer', enum: [0, 1, 2, 3, 4] } },
    required: ['score'],
    additionalProperties: false,
  },
  semantic_selector: {
    type: 'object',
    properties: { indices: indexList },
    required: ['indices'],
    additionalProperties: false,
  },
  semantic_pair_selector: {
    type: 'object',
    properties: { indices_a: indexList, indices_b: indexList },
    required: ['indices_a', 'indices_b'],
    additionalProperties: false,
  },
} as const;

export interface JudgeSchema {
  kind: JudgeKind;
  /** `response_format.json_schema.name`. */
  name: string;
  schema: (typeof SCHEMAS)[JudgeKind];
  schema_version: string;
  /** sha256 of the canonical JSON of `schema`. */
  schema_sha256: string;
}

function make(kind: JudgeKind): JudgeSchema {
  const schema = SCHEMAS[kind];
  return { kind, name: `avtime_${kind}`, schema, schema_version: `avtime-judge-schema-${kind}-v1`, schema_sha256: canonicalSha256(schema) };
}

export const JUDGE_SCHEMAS: Readonly<Record<JudgeKind, JudgeSchema>> = {
  t2e_scalar: make('t2e_scalar'),
  semantic_selector: make('semantic_selector'),
  semantic_pair_selector: make('semantic_pair_selector'),
};

/** The chat body's `response_format` for a kind. */
export function responseFormat(kind: JudgeKind) {
  const s = JUDGE_SCHEMAS[kind];
  return { type: 'json_schema' as const, json_schema: { name: s.name, schema: s.schema, strict: true as const } };
}
