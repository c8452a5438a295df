// `fpsweep avtime normalize` in the seed's argument form (SPEC-AVTIME-DATA §6): flags → SeedNormalizeOptions.
// `avtime normalize` with --raw comes here; without it, it is AVTime-Bench's stage on a bench root (../../cli/avtime.ts).
import { parseVerbArgs, requiredFlag, stringFlag, type OptionSpec } from '../../../../cli/options';
import { runSeedNormalize } from '../dvc/normalize';

export const summary = "LongVALE lines → predictions (AVTime-Bench's normalizer), the seed's argument form";

const HELP = `usage: fpsweep avtime normalize --target-inputs FILE --raw FILE --output FILE --failures FILE
         --report FILE --model-id ID [--model-path P] --protocol longvale_train_dvc_v1 --decoding-json JSON

  --target-inputs FILE   the rows the answers are for (avtime dvc's --jsonl); each needs metadata.duration_ms
  --raw FILE             avtime dvc's raw_predictions.jsonl: every target input answered once
  --output FILE          predictions.jsonl; --failures FILE prediction_failures.jsonl; --report FILE
                         prediction_report.json (all three absent or empty: outputs are never overwritten)
  --model-id ID          recorded; --model-path P recorded too
  --decoding-json JSON   the decoding the answers were made with, recorded as given

The parser and the official adjacent-caption merge are AVTime-Bench's (SPEC-AVTIME §4). Without --raw,
\`avtime normalize\` is AVTime-Bench's stage (--bench-root DIR). Exit: 0 written, 2 bad usage or input.

Rerun: refuses (exit 2): its outputs are immutable; name new output files (or remove the old ones).`;

/** The seed's form is the one that names its raw file; the bench stage finds its raw files in the output root. */
export function isSeedNormalizeForm(args: readonly string[]): boolean {
  return args.some((a) => a === '--raw' || a.startsWith('--raw='));
}

export const flags = {
  'target-inputs': { type: 'string', meta: 'FILE', value: { kind: 'path', is: 'file' } },
  raw: { type: 'string', meta: 'FILE', value: { kind: 'path', is: 'file' } },
  output: { type: 'string', meta: 'FILE', value: { kind: 'path', is: 'out-file', fresh: true } },
  failures: { type: 'string', meta: 'FILE', value: { kind: 'path', is: 'out-file', fresh: true } },
  report: { type: 'string', meta: 'FILE', value: { kind: 'path', is: 'out-file', fresh: true } },
  'model-id': { type: 'string' },
  'model-path': { type: 'string' },
  protocol: { type: 'string', value: { kind: 'enum', values: ['longvale_train_dvc_v1'] } },
  'decoding-json': { type: 'string' },
} satisfies OptionSpec;

export async function run(args: string[]): Promise<number> {
  const v = parseVerbArgs(args, flags, HELP);
  const need = (k: string): string => requiredFlag(v, k, HELP);
  const r = await runSeedNormalize({
    targetInputs: need('target-inputs'),
    raw: need('raw'),
    output: need('output'),
    failures: need('failures'),
    report: need('report'),
    modelId: need('model-id'),
    modelPath: stringFlag(v, 'model-path'),
    protocol: need('protocol'),
    decodingJson: need('decoding-json'),
  });
  process.stdout.write(`${r.line}\n`);
  return 0;
}
