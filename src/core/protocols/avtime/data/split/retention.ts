// Which rows the split keeps (SPEC-AVTIME-DATA §1, seed §1): labelled AVTime rows, or, with the source label
// stripped, ids in the public `avtime_` namespace. Everything else is excluded and counted, never guessed.
import type { SourceRow } from '../rowSchema';

export type Retention = 'retained' | 'other_source' | 'unknown_unlabeled';

export function retention(row: SourceRow): Retention {
  const source = row.metadata?.source;
  if (source !== undefined && source !== null) return source === 'avtime' ? 'retained' : 'other_source';
  return typeof row.id === 'string' && row.id.startsWith('avtime_') ? 'retained' : 'unknown_unlabeled';
}
