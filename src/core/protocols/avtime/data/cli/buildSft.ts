// `fpsweep avtime build-sft`: flags → SftOptions (SPEC-AVTIME-DATA §4, the seed's defaults).
import { numberFlag, parseVerbArgs, requiredFlag, stringFlag, type OptionSpec } from '../../../../cli/options';
import { runBuildSft } from '../sft/run';

export const summary = 'one-round SFT rows (From XX to YY answers) from AVTime and LongVALE rows';

const HELP = `usage: fpsweep avtime build-sft --avtime-jsonl FILE [--longvale-jsonl FILE] [--bench-root DIR]
         --output-jsonl FILE --report-json FILE [--avtime-sample-count 1500] [--seed 20260702]

  --avtime-jsonl FILE         AVTime rows (the split's train.jsonl)
  --longvale-jsonl FILE       LongVALE rows, every valid one used, first in the output
  --bench-root DIR            (BENCH_ROOT) its prompts/target.txt (the frozen training prompt AVTime-Bench sends)
                              and prompts/system.txt (the system message); without it (nor BENCH_ROOT), the
                              packaged prompts (the sample bench root's, fpsweep's prompt module)
  --avtime-sample-count N     valid AVTime rows by seeded rank, the first N (default 1500; 0: all)
  --seed S                    default 20260702
  --output-jsonl FILE, --report-json FILE   both must be absent or empty

Exit: 0 written, 2 bad usage or input (file:line named, nothing written).

Rerun: refuses (exit 2): its outputs are immutable; name new output files (or remove the old ones).`;

export const flags = {
  'avtime-jsonl': { type: 'string', meta: 'FILE', value: { kind: 'path', is: 'file' } },
  'longvale-jsonl': { type: 'string', meta: 'FILE', value: { kind: 'path', is: 'file' } },
  'bench-root': { type: 'string', meta: 'DIR', value: { kind: 'path', is: 'dir', env: 'BENCH_ROOT' } },
  'avtime-sample-count': { type: 'string', meta: 'N', value: { kind: 'int', min: 0, max: 100_000_000, default: 1500 } },
  seed: { type: 'string' },
  'output-jsonl': { type: 'string', meta: 'FILE', value: { kind: 'path', is: 'out-file', fresh: true } },
  'report-json': { type: 'string', meta: 'FILE', value: { kind: 'path', is: 'out-file', fresh: true } },
} satisfies OptionSpec;

export async function run(args: string[]): Promise<number> {
  const v = parseVerbArgs(args, flags, HELP);
  const need = (k: string): string => requiredFlag(v, k, HELP);
  const { build } = await runBuildSft({
    avtimeJsonl: need('avtime-jsonl'),
    longvaleJsonl: stringFlag(v, 'longvale-jsonl'),
    benchRoot: stringFlag(v, 'bench-root'),
    sampleCount: numberFlag(v, 'avtime-sample-count')!,
    seed: stringFlag(v, 'seed') ?? '20260702',
    outputJsonl: need('output-jsonl'),
    reportJson: need('report-json'),
  });
  const sk = Object.entries(build.tally)
    .map(([s, t]) => `${s} ${t.skipped.no_video + t.skipped.no_duration + t.skipped.no_events}`)
    .join(', ');
  process.stdout.write(`SFT rows written: ${build.rows.length} (${build.sampled} AVTime sampled); skipped: ${sk}\n`);
  return 0;
}
