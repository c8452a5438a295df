// Findings (issue 19): accuracy per benchmark × condition, paired contrasts and a verdict per benchmark.
export * from './types';
export { computeFindings, flipsBetween, METHOD, type FindingsOptions } from './compute';
export { buildFindingsInput, type FindingsInput, type BenchmarkTable } from './table';
export { loadFindingsInput } from './load';
export { FindingsFollower, type FollowedFindings } from './follow';
export { findingsTable, findingsMarkdown } from './text';

import { writeFileAtomic } from '../../../runner/atomicFile';
import { PackageLayout } from '../package/layout';
import { computeFindings, type FindingsOptions } from './compute';
import { loadFindingsInput } from './load';
import type { Findings } from './types';

/** The findings of a package as it is now (the sweep may still be running). */
export async function packageFindings(packageDir: string, opts: FindingsOptions = {}): Promise<Findings> {
  return computeFindings(await loadFindingsInput(packageDir), opts);
}

/** Where `fpsweep return` writes the findings: under logs/, so the returns tarball carries them (SPEC §7's paths). */
export function findingsFile(packageDir: string): string {
  return new PackageLayout(packageDir).findingsFile;
}

/** Writes logs/findings.json (atomically: a reader never sees half a file). */
export async function writeFindingsFile(packageDir: string, opts: FindingsOptions = {}): Promise<{ file: string; findings: Findings }> {
  const findings = await packageFindings(packageDir, opts);
  const file = findingsFile(packageDir);
  await writeFileAtomic(packageDir, file, JSON.stringify(findings, null, 1) + '\n');
  return { file, findings };
}
