// The findings charts of report.md: the overview and a card per benchmark as SVG files in .fpsweep/reports/,
// drawn from the same specs as the webview. `report` runs every few seconds while a panel follows a live
// sweep, so a chart is drawn again only when its spec changed (a hash per file, kept beside them), and the
// files of benchmarks no longer in the findings are removed.
import { writeFileAtomic } from '../../../../runner/atomicFile';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { PackageLayout } from '../../package/layout';
import type { Findings } from '../types';
import { TOKEN_NOTE } from './buildView';
import { meanFramesByCell } from './framesSent';
import { ladderPoints } from './ladders';
import { ladderSpec, overviewSpec } from './specs';
import { chartFileName, renderSvg, type ChartFile } from './svg';
import { parseBoundedJson } from '../../../../io/boundedJson';
import { mkdirUnder, removeUnder } from '../../../../containment/rootFs';

const MANIFEST = 'findings-charts.json';
const CHART_FILE = /^findings-[A-Za-z0-9._-]+\.svg$/;

async function readManifest(file: string): Promise<Record<string, string>> {
  try {
    const m = parseBoundedJson(await fs.readFile(file, 'utf8')) as unknown;
    return m && typeof m === 'object' && !Array.isArray(m) ? (m as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** Writes the charts that changed into the package's reports folder; returns every chart, in report order, and how many were drawn. */
export async function writeReportCharts(packageDir: string, f: Findings): Promise<{ files: ChartFile[]; drawn: number }> {
  const layout = new PackageLayout(packageDir);
  const dir = layout.reportsDir;
  await mkdirUnder(layout.root, dir);
  const frames = await meanFramesByCell(layout.resultsCsv);
  const charts: (ChartFile & { spec: TopLevelSpec })[] = [{ file: 'findings-overview.svg', title: 'Pixels or frames: the overview', spec: overviewSpec(f) }];
  f.benchmarks.forEach((b, i) =>
    charts.push({ file: chartFileName(b.benchmark, i), title: b.benchmark, spec: ladderSpec(b, ladderPoints(b, frames[b.benchmark]), undefined, TOKEN_NOTE) }),
  );
  const old = await readManifest(path.join(dir, MANIFEST));
  const next: Record<string, string> = {};
  let drawn = 0;
  for (const c of charts) {
    const target = path.join(dir, c.file);
    const hash = createHash('sha256').update(JSON.stringify(c.spec)).digest('hex');
    next[c.file] = hash;
    const present = await fs.stat(target).then(
      () => true,
      () => false,
    );
    if (present && old[c.file] === hash) continue;
    await writeFileAtomic(layout.root, target, await renderSvg(c.spec));
    drawn++;
  }
  const keep = new Set(charts.map((c) => c.file));
  for (const name of await fs.readdir(dir)) if (CHART_FILE.test(name) && !keep.has(name)) await removeUnder(layout.root, path.join(dir, name));
  await writeFileAtomic(layout.root, path.join(dir, MANIFEST), JSON.stringify(next, null, 1) + '\n');
  return { files: charts.map(({ file, title }) => ({ file, title })), drawn };
}
