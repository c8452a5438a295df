// Canonical JSON (sorted keys, no spaces) and its sha256: the identity of a judge request body and of a schema.

import { createHash } from 'node:crypto';

/**
 * Keys sorted (our keys are ASCII, so UTF-16 order is code-point order), no whitespace, JSON.stringify's
 * escapes. Equals Python's `json.dumps(v, sort_keys=True, separators=(',', ':'), ensure_ascii=False)` for
 * well-formed strings and integer numbers (a float like 0.0 would print differently there: we use integers).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`canonicalJson: ${value} is not JSON`);
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') {
      throw new Error(`canonicalJson: a ${typeof value} is not JSON`);
    }
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export function canonicalSha256(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
