// Which (benchmark, item, condition) units have a failure line in data/logs/failures.jsonl. A unit
// that failed and has no row yet is asked again by the next run; until then progress shows it as
// failed rather than as untouched work.
import type { LineProblem } from '../errors';
import { readJsonl } from '../package/jsonl';
import { failureRecordSchema } from '../package/schemas';
import { unitKey } from '../package/unitKey';

/** The failed units' keys; a missing log is no failure, a bad line a problem (file:line). */
export async function readFailedKeys(file: string): Promise<{ keys: Set<string>; problems: LineProblem[] }> {
  try {
    const res = await readJsonl(file, failureRecordSchema, { expected: 'a failure line {benchmark, item_id, condition, kind, message, endpoint, attempts, ts}' });
    return { keys: new Set(res.records.map((r) => unitKey(r.value.benchmark, r.value.item_id, r.value.condition))), problems: res.problems };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { keys: new Set(), problems: [] };
    throw err;
  }
}
