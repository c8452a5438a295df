// The worker side of each protocol: the function that runs its job (registry.ts holds the job's schema).
// Kept out of the registry so the extension's bundle carries no sweep, launcher or HTTP client.
import type { JobRunner } from '../core/protocols/types';
import { runFpJob } from '../core/protocols/fp/job';
import { runAvtimeJob } from '../core/protocols/avtime/stages/job';
import { runCaptionJob } from '../core/protocols/caption/job';
import { runCutJob } from '../core/protocols/cut/job';

export type JobRunners = Readonly<Record<string, JobRunner>>;

export const JOB_RUNNERS: JobRunners = {
  fp: runFpJob,
  // stages/job.ts reads the job from its JSON (what `--avtime` always ran): one reading, one place.
  avtime: (job) => runAvtimeJob(JSON.stringify(job)),
  caption: runCaptionJob,
  cut: runCutJob,
};
