// Reads what the findings need from a run package: items, manifest and the results CSV (as it is now:
// the sweep may be appending; a torn last line is left out, never counted).
import { loadPackage } from '../package/load';
import { PackageLayout } from '../package/layout';
import { readResultsCsv, type ResultsCsv } from '../package/resultsCsv';
import { buildFindingsInput, type FindingsInput } from './table';

export async function loadFindingsInput(packageDir: string): Promise<FindingsInput> {
  const layout = new PackageLayout(packageDir);
  return findingsInputOf(await loadPackage(layout), await readResultsCsv(layout.resultsCsv, { keepRows: true }));
}

/** The findings' input from a loaded package and its results CSV (the CSV's own problems first). */
export function findingsInputOf(pkg: Awaited<ReturnType<typeof loadPackage>>, csv: Pick<ResultsCsv, 'file' | 'header' | 'rows' | 'problems'>): FindingsInput {
  const input = buildFindingsInput(pkg.benchmarks, pkg.items, pkg.manifest, csv);
  input.problems.unshift(...csv.problems.filter((p) => !p.message.startsWith('second row')));
  return input;
}
