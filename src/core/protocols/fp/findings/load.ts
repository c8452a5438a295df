// Reads what the findings need from a run package: items, manifest and the results CSV (as it is now:
// the sweep may be appending; a torn last line is left out, never counted).
import { loadPackage } from '../package/load';
import { PackageLayout } from '../package/layout';
import { readResultsCsv } from '../package/resultsCsv';
import { buildFindingsInput, type FindingsInput } from './table';

export async function loadFindingsInput(packageDir: string): Promise<FindingsInput> {
  const layout = new PackageLayout(packageDir);
  const pkg = await loadPackage(layout);
  const csv = await readResultsCsv(layout.resultsCsv, { keepRows: true });
  const input = buildFindingsInput(pkg.benchmarks, pkg.items, pkg.manifest, csv);
  input.problems.unshift(...csv.problems.filter((p) => !p.message.startsWith('second row')));
  return input;
}
