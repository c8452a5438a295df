// Findings (issue 19): accuracy per benchmark × condition, paired contrasts and a verdict per benchmark.
export * from './types';
export { computeFindings, flipsBetween, METHOD, type FindingsOptions } from './compute';
export { buildFindingsInput, type FindingsInput, type BenchmarkTable } from './table';
export { loadFindingsInput } from './load';
export { findingsTable, findingsMarkdown } from './text';

import { computeFindings, type FindingsOptions } from './compute';
import { loadFindingsInput } from './load';
import type { Findings } from './types';

/** The findings of a package as it is now (the sweep may still be running). */
export async function packageFindings(packageDir: string, opts: FindingsOptions = {}): Promise<Findings> {
  return computeFindings(await loadFindingsInput(packageDir), opts);
}
