// Frames × Pixels as a run type (registry.ts): a run root is a run package; its worker job is RunOptions
// (runSweep); a stop drains (its session's policy); its report is buildReport's. Everything here
// delegates to the existing modules. The sweep itself is the worker's (job.ts, worker/jobRunners.ts): this file is
// on the extension's path (registry.ts), and the report and the dry run it imports carry no sweep or launcher.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { PackageLayout } from './package/layout';
import { runOptionsSchema, type RunOptions } from './sweep/runOptions';
import type { ProgressGroup, ProgressSnapshot, ProgressState, RunProtocol } from '../types';
import { readLiveStatus } from './sweep/liveStatus';
import { cellState, fromDryRun, fromWorkerStatus, type ProgressView } from './progress';
import type { Report } from './report/schema';
import { buildReport } from './report/buildReport';
import { dryRun, dryRunJson } from './dryrun/dryRun';
import { dryRunJsonSchema } from './dryrun/jsonSchema';
import { DEFAULT_CONDITIONS } from './rules/conditions';
import { fpStatusView, fpStopWords } from './statusView';
import { parseBoundedJson } from '../../io/boundedJson';

async function exists(p: string): Promise<boolean> {
  return fs.stat(p).then(
    () => true,
    () => false,
  );
}

/** A run package: items/samples/ (the inputs) or results/conditions_results.csv (a package with results). */
export async function isFpPackage(dir: string): Promise<boolean> {
  const l = new PackageLayout(dir);
  return (await exists(l.samplesDir)) || (await exists(l.resultsCsv));
}

function runState(v: ProgressView): ProgressState {
  if (v.live) return 'running';
  if (v.failed > 0 || v.state === 'failed') return 'failed';
  if (v.total > 0 && v.benchmarks.every((b) => b.cells.every((c) => c.todo === 0))) return 'done';
  return v.finished > 0 ? 'stopped' : 'todo';
}

/** The sweep's view as a snapshot: benchmarks → conditions, each with done/todo/failed. */
export function fpSnapshot(root: string, v: ProgressView): ProgressSnapshot<ProgressView> {
  const groups: ProgressGroup[] = v.benchmarks.map((b) => {
    const todo = b.cells.reduce((x, c) => x + c.todo, 0);
    const state: ProgressState = b.failed ? 'failed' : todo === 0 ? 'done' : v.live && b.finished > 0 ? 'running' : 'todo';
    return {
      key: b.benchmark,
      label: b.benchmark,
      state,
      done: b.finished,
      todo,
      failed: b.failed,
      rows: b.cells.map((c) => ({ key: c.condition, label: c.condition, state: cellState(c, v.live), done: c.done, todo: c.todo, failed: c.failed })),
    };
  });
  return { protocol: 'fp', root: path.resolve(root), runId: v.runId, live: v.live, state: runState(v), summary: v.summary, groups, detail: v };
}

/** From the live status file, else the last one recounted from the CSV, else the dry run of the package. */
async function readFpProgress(root: string): Promise<ProgressSnapshot<ProgressView>> {
  const layout = new PackageLayout(root);
  const live = await readLiveStatus(layout);
  if (live.status) return fpSnapshot(layout.root, fromWorkerStatus(live.status, live.alive));
  const report = await dryRun(layout.root, { conditions: DEFAULT_CONDITIONS });
  return fpSnapshot(layout.root, fromDryRun(dryRunJsonSchema.parse(parseBoundedJson(dryRunJson(report)))));
}

export const fpProtocol: RunProtocol<RunOptions, ProgressView, Report> = {
  id: 'fp',
  title: 'Frames × Pixels',
  async findRoots(dir) {
    return (await isFpPackage(dir)) ? [path.resolve(dir)] : [];
  },
  recognises: isFpPackage,
  runRoot: (root) => new PackageLayout(root),
  readProgress: readFpProgress,
  job: { schema: runOptionsSchema },
  report: (root) => buildReport(root),
  statusView: fpStatusView,
  describeStop: fpStopWords,
  // Loaded when doctor asks, not with the registry (the extension and every verb import this file).
  doctor: (root, opts) => (require('./doctor/doctor') as typeof import('./doctor/doctor')).fpDoctorLines(root, opts),
};
