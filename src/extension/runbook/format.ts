// The runbook file (`*.fpsweep-runbook`): JSON, cells as markdown or one `fpsweep <verb> …` step each.
// No vscode here: the serializer adapts it, tests run it under plain mocha.
import { z } from 'zod';
import { InputError } from '../../core/errors';

export const runbookSchema = z.object({
  fpsweepRunbook: z.literal(1),
  cells: z.array(z.object({ kind: z.enum(['markdown', 'step']), value: z.string() })),
});
export type Runbook = z.infer<typeof runbookSchema>;

export function parseRunbook(text: string, file = 'runbook'): Runbook {
  if (text.trim() === '') return defaultRunbook();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new InputError(`not valid JSON (${(err as Error).message})`, { file });
  }
  const r = runbookSchema.safeParse(json);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new InputError(`${i.path.join('.') || '(root)'}: ${i.message}`, { file });
  }
  return r.data;
}

export function stringifyRunbook(r: Runbook): string {
  return JSON.stringify(runbookSchema.parse(r), null, 2) + '\n';
}

/** The seed's steps in order (prepare → doctor → dry run → pilot → timing → full run → checks → return). */
export function defaultRunbook(): Runbook {
  const md = (value: string) => ({ kind: 'markdown' as const, value });
  const step = (value: string) => ({ kind: 'step' as const, value });
  return {
    fpsweepRunbook: 1,
    cells: [
      md(
        '# Frames × Pixels runbook\nRun each step in order; ' +
          'each cell runs one `fpsweep` verb on this package and shows its output. Interrupting a cell stops its step.',
      ),
      md('## 1. Prepare data\nVerify the video shards against `videos_manifest.json`, extract them, count the videos.'),
      step('fpsweep prepare'),
      md('## 2. Doctor\nGPUs, vLLM, model revision, ffmpeg, cores, disk, and whether 65,536 tokens of context fit.'),
      step('fpsweep doctor'),
      md('## 3. Dry run\nPer benchmark × condition: todo, NA, reuse, done, no video.'),
      step('fpsweep dry-run'),
      md(
        '## 4. Pilot\nMVBench, LVBench, TimeScope under every condition, in the background worker (it survives a closed window). ' +
          'Interrupting this cell stops the worker.',
      ),
      step('fpsweep run --pilot --detach'),
      md('## 5. Pilot timing report\nPer condition: infer, infer_s/item, decode_s/item, prompt_tok/item, and the full run extrapolated.'),
      step('fpsweep report'),
      md('## 6. Full run\nAll benchmarks × conditions; rows already in the CSV are skipped.'),
      step('fpsweep run --detach'),
      md('## 7. Checks\nSPEC §6: `capped_ctx`, `n_max`, failures per benchmark × condition.'),
      step('fpsweep report'),
      md('## 8. Return\nTarball + sha256 of the results and logs; add `--upload` to push them (token from "fpsweep: Set Hugging Face token").'),
      step('fpsweep return'),
      ...avtimeCells(),
    ],
  };
}

/** The AVTime-Bench section: its steps run on the configured bench root (`fpsweep.avtime.benchRoot`). */
export function avtimeCells(): Runbook['cells'] {
  const md = (value: string) => ({ kind: 'markdown' as const, value });
  const step = (value: string) => ({ kind: 'step' as const, value });
  return [
    md(
      '# AVTime-Bench\nThe second run type: target inference → LongVALE merge → judge → six scores. ' +
        'Steps run on the bench root of `fpsweep.avtime.benchRoot`; runs go to `fpsweep.avtime.outputRoot`/<RUN_ID>.',
    ),
    md('## A1. Sample bench root (a trial only)\nA small complete bench root made with ffmpeg (videos with audio). Skip it when the real bench root is there.'),
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
}

export const STEP_VERBS = ['prepare', 'doctor', 'dry-run', 'run', 'status', 'stop', 'report', 'return', 'avtime'] as const;
/** `avtime` steps: the CLI's stages, plus `status` and `report`, which the extension itself answers. */
export const AVTIME_STEPS = ['sample', 'inputs', 'infer', 'normalize', 'judge', 'score', 'run', 'status', 'report'] as const;

export interface ParsedStep {
  verb: (typeof STEP_VERBS)[number];
  args: string[];
}

/** `fpsweep run --pilot --detach` → {verb:'run', args:['--pilot','--detach']}. Quotes group words. */
export function parseStep(text: string): ParsedStep {
  const line = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l !== '' && !l.startsWith('#'));
  if (!line) throw new InputError('empty step: write one line such as `fpsweep dry-run`');
  const words: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) words.push(m[1] ?? m[2] ?? m[3]);
  if (words[0] === 'fpsweep') words.shift();
  const verb = words.shift() ?? '';
  if (!(STEP_VERBS as readonly string[]).includes(verb)) {
    throw new InputError(`unknown step '${verb}': one of ${STEP_VERBS.join(', ')}`);
  }
  if (verb === 'avtime' && !(AVTIME_STEPS as readonly string[]).includes(words[0] ?? '')) {
    throw new InputError(`unknown avtime step '${words[0] ?? ''}': one of ${AVTIME_STEPS.join(', ')}`);
  }
  if (words.includes('--package') || words.includes('-p')) {
    throw new InputError("a step runs on the runbook's own package: leave out --package");
  }
  return { verb: verb as ParsedStep['verb'], args: words };
}
