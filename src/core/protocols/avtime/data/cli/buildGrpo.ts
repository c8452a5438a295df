// `fpsweep avtime build-grpo`: flags → GrpoOptions (SPEC-AVTIME-DATA §5, the seed's defaults).
import { UsageError } from '../../../../errors';
import { parseVerbArgs, requiredFlag, stringFlag, type OptionSpec } from '../../../../cli/options';
import { runBuildGrpo } from '../grpo/run';

export const summary = 'pure-BiTSC GRPO rows (schema avtime_btsc_grpo_v1, task bitsc) from one-round SFT rows';

const HELP = `usage: fpsweep avtime build-grpo --input-jsonl FILE --output-jsonl FILE --report-json FILE
         [--seed 20260729] [--no-shuffle] [--check-media --media-root DIR]

  --input-jsonl FILE     one-round SFT rows (build-sft's output)
  --seed S               the seeded-rank order (default 20260729); --no-shuffle keeps the input order
  --check-media          every video must exist under --media-root DIR (relative references resolve
                         there; nothing may resolve outside it)

Every row is checked: one assistant message, one video, only \`From XX to YY, caption\` lines, chronological.
Exit: 0 written, 2 bad usage or input (file:line and the rule named, nothing written).

Rerun: refuses (exit 2): its outputs are immutable; name new output files (or remove the old ones).`;

export const flags = {
  'input-jsonl': { type: 'string', meta: 'FILE', value: { kind: 'path', is: 'file' } },
  'output-jsonl': { type: 'string', meta: 'FILE', value: { kind: 'path', is: 'out-file', fresh: true } },
  'report-json': { type: 'string', meta: 'FILE', value: { kind: 'path', is: 'out-file', fresh: true } },
  seed: { type: 'string' },
  'no-shuffle': { type: 'boolean' },
  'check-media': { type: 'boolean' },
  'media-root': { type: 'string', meta: 'DIR', value: { kind: 'path', is: 'dir' } },
} satisfies OptionSpec;

export async function run(args: string[]): Promise<number> {
  const v = parseVerbArgs(args, flags, HELP);
  const need = (k: string): string => requiredFlag(v, k, HELP);
  const check = v['check-media'] === true;
  if (check !== (typeof v['media-root'] === 'string')) throw new UsageError('--check-media and --media-root DIR go together');
  const r = await runBuildGrpo({
    inputJsonl: need('input-jsonl'),
    outputJsonl: need('output-jsonl'),
    reportJson: need('report-json'),
    seed: stringFlag(v, 'seed') ?? '20260729',
    shuffle: v['no-shuffle'] !== true,
    mediaRoot: check ? stringFlag(v, 'media-root') : undefined,
  });
  process.stdout.write(`GRPO rows written: ${r.rows} (${v['no-shuffle'] === true ? 'input order' : 'seeded order'})\n`);
  return 0;
}
