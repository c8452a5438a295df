// AVTime-Bench's part of the runbook (no vscode: tested under plain mocha): its steps run on the configured bench
// root (`fpsweep.avtime.benchRoot`); avtimeSteps.ts runs them.
import { InputError } from '../../../core/errors';
import type { RunbookSection } from '../../runbook/format';
import { DATA_STEPS } from './data/dataRunbook';

/** `avtime` steps: the CLI's stages, plus `status` and `report`, which the extension itself answers. */
export const AVTIME_STEPS = ['sample', 'inputs', 'infer', 'normalize', 'judge', 'score', 'run', 'status', 'report'] as const;

export const avtimeRunbook: RunbookSection = {
  verbs: ['avtime'],
  check(_verb, args) {
    // The Data runbook's steps (data/dataRunbook.ts) share the verb.
    const steps: readonly string[] = [...AVTIME_STEPS, ...DATA_STEPS];
    if (!steps.includes(args[0] ?? '')) throw new InputError(`unknown avtime step '${args[0] ?? ''}': one of ${steps.join(', ')}`);
  },
  cells() {
    const md = (value: string) => ({ kind: 'markdown' as const, value });
    const step = (value: string) => ({ kind: 'step' as const, value });
    return [
      md(
        '# AVTime-Bench\nThe second run type: target inference → LongVALE merge → judge → six scores. ' +
          'Steps run on the bench root of `fpsweep.avtime.benchRoot`; runs go to `fpsweep.avtime.outputRoot`/<RUN_ID>.',
      ),
      md(
        '## A1. Sample bench root (a trial only)\nA small complete bench root made with ffmpeg (videos with audio). Skip it when the real bench root is there.',
      ),
      step('fpsweep avtime sample --out data/AVTime-Bench'),
      md('## A2. Target inputs\n`target_inputs.jsonl` and its report, built once; bad input stops here (file:line, nothing written).'),
      step('fpsweep avtime inputs'),
      md(
        '## A3. Run\nEvery stage in the background worker, into a new output root (a fresh run id, unless you add `--run-id ID`). ' +
          'The cell follows the run; interrupting it leaves the worker running.',
      ),
      step('fpsweep avtime run --detach'),
      md('## A4. Status\nStages, shards and judge passes of the latest run (or `--run-id ID`), from its status file or its artifacts.'),
      step('fpsweep avtime status'),
      md('## A5. Report\nThe six scores and the per-query traces of the latest run (or `--run-id ID`) in a report panel.'),
      step('fpsweep avtime report'),
    ];
  },
};
