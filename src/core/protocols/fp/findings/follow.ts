// The findings of a package that a sweep is writing, kept by one long-lived process (`fpsweep findings --follow`,
// the findings panel's child): each ask re-reads only what changed. The package (items, manifest, scope) is
// loaded again only when its files' stamps change, the findings are computed again only when the results CSV's
// stamp changes, and the CSV's rows and the frames each condition sent are parsed from the appended lines only
// (GrowingResults, FramesSentTracker).
// An ask with nothing changed costs a few stats. The numbers are the ones `fpsweep findings --json` prints.
import { promises as fs } from 'node:fs';
import { loadPackage } from '../package/load';
import { PackageLayout } from '../package/layout';
import { FramesSentTracker, type MeanFrames } from './charts/framesSent';
import { GrowingResults } from './growingResults';
import { computeFindings, type FindingsOptions } from './compute';
import { findingsInputOf } from './load';
import type { Findings } from './types';
import type { LineProblem } from '../../../errors';

export interface FollowedFindings {
  /** The inputs' stamp: equal stamps, equal findings. */
  stamp: string;
  findings: Findings;
  /** Mean frames the answered rows of each benchmark × condition really sent (the charts' x positions). */
  framesSent: MeanFrames;
  problems: LineProblem[];
}

async function stampOf(file: string): Promise<string> {
  return fs.stat(file).then(
    (s) => `${s.size}:${s.mtimeMs}`,
    () => '-',
  );
}

/** The stamp of a folder's files (name, size, mtime): items/samples/*.jsonl. */
async function dirStamp(dir: string): Promise<string> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  return (await Promise.all(names.sort().map(async (n) => `${n}=${await stampOf(`${dir}/${n}`)}`))).join(',');
}

export class FindingsFollower {
  private readonly layout: PackageLayout;
  private readonly frames: FramesSentTracker;
  private readonly results: GrowingResults;
  private pkg: { stamp: string; value: Awaited<ReturnType<typeof loadPackage>> } | undefined;
  private last: FollowedFindings | undefined;

  constructor(
    packageDir: string,
    private readonly opts: FindingsOptions = {},
  ) {
    this.layout = new PackageLayout(packageDir);
    this.frames = new FramesSentTracker(this.layout.resultsCsv);
    this.results = new GrowingResults(this.layout.resultsCsv);
  }

  /** The findings now; the same object as last time when no input changed. */
  async read(): Promise<FollowedFindings> {
    const l = this.layout;
    const pkgStamp = [await stampOf(l.manifest), await stampOf(l.scopeSummary), await dirStamp(l.samplesDir)].join('|');
    const stamp = `${pkgStamp}|${await stampOf(l.resultsCsv)}`;
    if (this.last?.stamp === stamp) return this.last;
    if (this.pkg?.stamp !== pkgStamp) this.pkg = { stamp: pkgStamp, value: await loadPackage(l) };
    const [csv, framesSent] = await Promise.all([this.results.read(), this.frames.read()]);
    const input = findingsInputOf(this.pkg.value, csv);
    this.last = { stamp, findings: computeFindings(input, this.opts), framesSent, problems: input.problems };
    return this.last;
  }
}
