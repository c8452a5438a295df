// AVTime-Bench as a run type (registry.ts): a run root is an output root (progress.ts's markers); its worker job
// is stages/job.ts's (verb, options, output root, run id); it stops as every run type does (the engine's stop file
// and SIGTERM), its run session failing closed; its report is report.ts's. Delegates to the existing modules.
import * as path from 'node:path';
import { avtimeStatusView, avtimeStopWords } from './statusView';
import type { ProgressGroup, ProgressSnapshot, RunProtocol } from '../types';
import { AvtimeOutputRoot } from './stages/layout';
import { discoverAvtimeRuns, isAvtimeRun, readAvtimeProgress, type AvtimeRunView } from './progress';
import type { AvtimeReport } from './reportTypes';
import { avtimeReport, loadAvtimeRun } from './report';
import { avtimeJobSchema, type AvtimeJob } from './stages/jobSchema';

/** The run's view as a snapshot: stages, with the shards under infer and the judge passes under judge. */
export function avtimeSnapshot(v: AvtimeRunView): ProgressSnapshot<AvtimeRunView> {
  const groups: ProgressGroup[] = v.stages.map((s) => ({
    key: s.name,
    label: s.name,
    state: s.state,
    done: s.done,
    todo: s.todo,
    failed: s.failed,
    rows:
      s.name === 'infer'
        ? v.shards.map((x) => ({
            key: `shard${x.shard}`,
            label: `shard ${x.shard}`,
            state: x.state,
            done: x.written,
            todo: Math.max(0, x.expected - x.written - x.failed),
            failed: x.failed,
          }))
        : s.name === 'judge'
          ? v.passes.map((p) => ({
              key: `pass${p.pass}`,
              label: `pass ${p.pass}`,
              state: p.state,
              done: p.done,
              todo: Math.max(0, p.requests - p.done - p.failed),
              failed: p.failed,
            }))
          : [],
  }));
  return { protocol: 'avtime', root: v.outputRoot, runId: v.runId, live: v.live, state: v.state, summary: v.summary, groups, detail: v };
}

export const avtimeProtocol: RunProtocol<AvtimeJob, AvtimeRunView, AvtimeReport> = {
  id: 'avtime',
  title: 'AVTime-Bench',
  async findRoots(dir) {
    const own = path.resolve(dir);
    // The folder itself may be a run (fpsweep.avtime.outputRoot pointing at one), else the runs under it.
    if (await isAvtimeRun(own)) return [own];
    return discoverAvtimeRuns(own);
  },
  recognises: isAvtimeRun,
  // The engine's state in an output root (lock, status, stop file, log): the layout's, which needs no run id.
  runRoot: (root) => new AvtimeOutputRoot(root),
  readProgress: async (root) => avtimeSnapshot(await readAvtimeProgress(root)),
  job: { schema: avtimeJobSchema },
  report: async (root) => avtimeReport(await loadAvtimeRun(root)),
  statusView: async (root) => avtimeStatusView(await readAvtimeProgress(root)),
  // Loaded when doctor asks, not with the registry (the extension and every verb import this file).
  doctor: (root, opts) => (require('./doctor/vllmChecks') as typeof import('./doctor/vllmChecks')).avtimeDoctorLines(root, opts),
  describeStop: avtimeStopWords,
};
