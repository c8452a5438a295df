// Which (benchmark, item, condition) units have a failure line in data/logs/failures.jsonl. A unit
// that failed and has no row yet is asked again by the next run; until then progress (the dry run and
// the live worker alike) shows it as failed rather than as untouched work.
import type { LineProblem } from '../../../errors';
import { readOptionalJsonl } from '../../../package/jsonl';
import { FAILURE_LINE, failureRecordSchema } from './schemas';
import { unitKey } from './unitKey';

/** The failed units' keys; a missing log is no failure, a bad line a problem (file:line). */
export async function readFailedKeys(file: string): Promise<{ keys: Set<string>; problems: LineProblem[] }> {
  const res = await readOptionalJsonl(file, failureRecordSchema, { expected: FAILURE_LINE });
  return { keys: new Set(res.records.map((r) => unitKey(r.value.benchmark, r.value.item_id, r.value.condition))), problems: res.problems };
}
