// The job's cutter: the user's command, or ours (builtin/), with the job's --config.
import { promises as fs } from 'node:fs';
import { InputError } from '../../errors';
import { commandCutter, type Cutter } from './cutter';
import type { CutJob } from './jobSchema';

export async function cutterOf(job: CutJob): Promise<Cutter> {
  if (job.cutter.kind === 'command') return commandCutter(job.cutter.argv, job.configFile);
  const configText =
    job.configFile === null
      ? null
      : await fs.readFile(job.configFile, 'utf8').catch((err: Error) => {
          throw new InputError(`--config ${job.configFile}: ${err.message}`);
        });
  // Loaded only for the builtin cutter (it brings ffmpeg's signal readers and the fusion).
  const { builtinCutter } = require('./builtinCutter') as typeof import('./builtinCutter');
  return builtinCutter(configText, job.configFile ?? '');
}
