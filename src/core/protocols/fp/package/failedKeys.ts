// Which (benchmark, item, condition) units have a failure line in data/logs/failures.jsonl. A unit
// that failed and has no row yet is asked again by the next run; until then progress (the dry run and
// the live worker alike) shows it as failed rather than as untouched work.
import type { LineProblem } from '../../../errors';
import { readOptionalJsonl } from '../../../package/jsonl';
import { FAILURE_LINE, failureRecordSchema } from './schemas';
import { unitKey } from './unitKey';

/** A failure line's unit, kind and words: the same data failure logged again says nothing new. */
export function failureSignature(key: string, kind: string, message: string): string {
  return `${key}\u0000${kind}\u0000${message}`;
}

/**
 * The failed units' keys, and every line's signature (failureSignature); a missing log is no failure, a bad line a
 * problem (file:line).
 */
export async function readFailedKeys(file: string): Promise<{ keys: Set<string>; signatures: Set<string>; problems: LineProblem[] }> {
  const res = await readOptionalJsonl(file, failureRecordSchema, { expected: FAILURE_LINE });
  const keys = new Set<string>();
  const signatures = new Set<string>();
  for (const { value: f } of res.records) {
    const key = unitKey(f.benchmark, f.item_id, f.condition);
    keys.add(key);
    signatures.add(failureSignature(key, f.kind, f.message));
  }
  return { keys, signatures, problems: res.problems };
}
