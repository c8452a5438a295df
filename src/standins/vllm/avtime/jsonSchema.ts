// The subset of JSON Schema the AVTime judge schemas use, compiled so the stand-in can answer inside
// it (as vLLM's guided decoding would under `strict: true`) and tests can check an answer against it:
// an object with integer and array-of-integer properties, minimum/maximum, an integer enum,
// minItems/maxItems, uniqueItems, required, additionalProperties false (vLLM 0.11's default guided
// backend, xgrammar, compiles all of these: vllm/v1/structured_output/backend_xgrammar.py). Any other keyword is refused, loudly.
import { RequestRefusal } from '../request';

export interface IntSpec {
  kind: 'integer';
  minimum: number | null;
  maximum: number | null;
  /** The allowed values, when the schema lists them. */
  enum: number[] | null;
}
export interface IntArraySpec {
  kind: 'array';
  items: IntSpec;
  minItems: number;
  maxItems: number | null;
  uniqueItems: boolean;
}
export type PropSpec = IntSpec | IntArraySpec;
export interface ObjectSpec {
  properties: Array<{ name: string; spec: PropSpec }>;
  required: string[];
  additionalProperties: boolean;
}

const NOTES = new Set(['title', 'description', '$schema', '$id']);

function refuse(where: string, what: string): never {
  throw new RequestRefusal(400, `stand-in vLLM: response_format schema ${where}: ${what} (the stand-in knows objects of integer and integer-array properties)`);
}

function keys(node: Record<string, unknown>, allowed: string[], where: string): void {
  for (const k of Object.keys(node)) if (!allowed.includes(k) && !NOTES.has(k)) refuse(where, `unsupported keyword '${k}'`);
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function num(x: unknown, where: string, int = true): number | null {
  if (x === undefined) return null;
  if (typeof x !== 'number' || (int && !Number.isInteger(x))) refuse(where, `expected ${int ? 'an integer' : 'a number'}, got ${JSON.stringify(x)}`);
  return x;
}

function intSpec(node: unknown, where: string): IntSpec {
  if (!isRecord(node) || node.type !== 'integer') refuse(where, 'expected {"type": "integer", …}');
  keys(node, ['type', 'minimum', 'maximum', 'enum'], where);
  let values: number[] | null = null;
  if (node.enum !== undefined) {
    if (!Array.isArray(node.enum) || node.enum.length === 0) refuse(`${where}.enum`, 'expected a non-empty array');
    values = (node.enum as unknown[]).map((v, i) => num(v, `${where}.enum[${i}]`) as number);
  }
  return { kind: 'integer', minimum: num(node.minimum, `${where}.minimum`), maximum: num(node.maximum, `${where}.maximum`), enum: values };
}

export function compileSchema(schema: unknown): ObjectSpec {
  if (!isRecord(schema) || schema.type !== 'object') refuse('(root)', 'expected {"type": "object", …}');
  keys(schema, ['type', 'properties', 'required', 'additionalProperties'], '(root)');
  const props = schema.properties ?? {};
  if (!isRecord(props)) refuse('properties', 'expected an object');
  const properties = Object.entries(props).map(([name, node]) => {
    const where = `properties.${name}`;
    if (isRecord(node) && node.type === 'array') {
      keys(node, ['type', 'items', 'minItems', 'maxItems', 'uniqueItems'], where);
      const u = node.uniqueItems;
      if (u !== undefined && typeof u !== 'boolean') refuse(`${where}.uniqueItems`, 'expected a boolean');
      return {
        name,
        spec: {
          kind: 'array',
          items: intSpec(node.items, `${where}.items`),
          minItems: num(node.minItems, `${where}.minItems`) ?? 0,
          maxItems: num(node.maxItems, `${where}.maxItems`),
          uniqueItems: u === true,
        } as IntArraySpec,
      };
    }
    return { name, spec: intSpec(node, where) as PropSpec };
  });
  const required = schema.required ?? [];
  if (!Array.isArray(required) || required.some((r) => typeof r !== 'string' || !(r in props))) refuse('required', 'expected names of properties');
  const ap = schema.additionalProperties ?? true;
  if (typeof ap !== 'boolean') refuse('additionalProperties', 'expected a boolean');
  return { properties, required: required as string[], additionalProperties: ap };
}

/** Problems of `value` against `spec` (empty when it validates). */
export function schemaProblems(spec: ObjectSpec, value: unknown): string[] {
  if (!isRecord(value)) return ['not an object'];
  const out: string[] = [];
  for (const r of spec.required) if (!(r in value)) out.push(`missing required '${r}'`);
  for (const k of Object.keys(value)) {
    const p = spec.properties.find((x) => x.name === k);
    if (!p) {
      if (!spec.additionalProperties) out.push(`unexpected property '${k}'`);
      continue;
    }
    const v = value[k];
    if (p.spec.kind === 'integer') out.push(...intProblems(p.spec, v, k));
    else if (!Array.isArray(v)) out.push(`${k}: not an array`);
    else {
      if (v.length < p.spec.minItems) out.push(`${k}: fewer than ${p.spec.minItems} items`);
      if (p.spec.maxItems !== null && v.length > p.spec.maxItems) out.push(`${k}: more than ${p.spec.maxItems} items`);
      if (p.spec.uniqueItems && new Set(v).size !== v.length) out.push(`${k}: items not unique`);
      v.forEach((x, i) => out.push(...intProblems(p.spec.kind === 'array' ? p.spec.items : p.spec, x, `${k}[${i}]`)));
    }
  }
  return out;
}

function intProblems(s: IntSpec, v: unknown, where: string): string[] {
  if (typeof v !== 'number' || !Number.isInteger(v)) return [`${where}: not an integer`];
  if (s.minimum !== null && v < s.minimum) return [`${where}: below ${s.minimum}`];
  if (s.maximum !== null && v > s.maximum) return [`${where}: above ${s.maximum}`];
  if (s.enum !== null && !s.enum.includes(v)) return [`${where}: not one of ${s.enum.join(', ')}`];
  return [];
}

/** The allowed integer nearest to `v` (the lower one on a tie). */
export function clampInt(s: IntSpec, v: number): number {
  const clamped = Math.min(s.maximum ?? Infinity, Math.max(s.minimum ?? -Infinity, v));
  if (s.enum === null) return clamped;
  const allowed = s.enum.filter((x) => intProblems(s, x, '').length === 0);
  if (allowed.length === 0) return clamped;
  return allowed.reduce((best, x) => (Math.abs(x - v) < Math.abs(best - v) || (Math.abs(x - v) === Math.abs(best - v) && x < best) ? x : best));
}

/** Keeps the wanted integers the spec allows, then pads/cuts to minItems/maxItems. */
export function fitArray(s: IntArraySpec, wanted: readonly number[]): number[] {
  let out = wanted.filter((v) => intProblems(s.items, v, '').length === 0);
  if (s.uniqueItems) out = [...new Set(out)];
  if (s.maxItems !== null) out = out.slice(0, s.maxItems);
  const from = s.items.minimum ?? 0;
  for (let v = from; out.length < s.minItems && v < from + 1_000_000; v++) {
    if ((!s.uniqueItems || !out.includes(v)) && intProblems(s.items, v, '').length === 0) out.push(v);
  }
  return out;
}
