// `fpsweep avtime split`: flags → SplitOptions (SPEC-AVTIME-DATA §1, the seed's defaults).
import { UsageError } from '../../../../errors';
import { numberFlag, parseVerbArgs, stringFlag, type OptionSpec } from '../../../../cli/options';
import { runSplit } from '../split/run';

export const summary = 'the AVTime-50K split: train.jsonl, test.jsonl, test_ids.jsonl, split_manifest.json';

const HELP = `usage: fpsweep avtime split --source FILE [--output-root DIR]
         (--test-ids FILE | --derive-test-ids [--test-size 300] [--seed S]) [--expected-rows 49977]

  --source FILE        complete-video JSONL, one record per line
  --output-root DIR    default outputs/avtime-50k-split; must be absent or empty (artifacts are immutable)
  --test-ids FILE      frozen mode: the test set is exactly these ids (JSONL {"id"})
  --derive-test-ids    derived mode: 5×5 duration × event-count strata, largest-remainder quotas, seeded ranks
  --test-size N        derived mode's size (default 300)
  --seed S             derived mode's seed (default AVTime-50K-public-split-v1)
  --expected-rows N    the retained count must be N (default 49977; 0 turns the check off)

Exit: 0 written, 2 bad usage or input (file:line named, nothing written).

Rerun: refuses (exit 2): its outputs are immutable; choose a new --output-root (or remove the old one).`;

export const flags = {
  source: { type: 'string', meta: 'FILE', value: { kind: 'path', is: 'file' } },
  // Its default resolved against the cwd as a typed one is: outputs/avtime-50k-split under the current folder.
  'output-root': { type: 'string', meta: 'DIR', value: { kind: 'path', is: 'out-dir', fresh: true, default: 'outputs/avtime-50k-split' } },
  'test-ids': { type: 'string', meta: 'FILE', value: { kind: 'path', is: 'file' } },
  'derive-test-ids': { type: 'boolean' },
  'test-size': { type: 'string', meta: 'N', value: { kind: 'int', min: 1, max: 100_000_000 } },
  seed: { type: 'string' },
  'expected-rows': { type: 'string', meta: 'N', value: { kind: 'int', min: 0, max: 1_000_000_000, default: 49977 } },
} satisfies OptionSpec;

export async function run(args: string[]): Promise<number> {
  const v = parseVerbArgs(args, flags, HELP);
  const source = stringFlag(v, 'source');
  if (!source) throw new UsageError(`--source FILE is required\n\n${HELP}`);
  const derive = v['derive-test-ids'] === true;
  const testIds = stringFlag(v, 'test-ids');
  if (derive === (testIds !== undefined)) throw new UsageError(`give exactly one of --test-ids FILE and --derive-test-ids\n\n${HELP}`);
  if (!derive && (v['test-size'] !== undefined || v.seed !== undefined)) throw new UsageError('--test-size and --seed go with --derive-test-ids');
  const seed = stringFlag(v, 'seed') ?? 'AVTime-50K-public-split-v1';
  const { plan } = await runSplit({
    source,
    outputRoot: stringFlag(v, 'output-root')!,
    expectedRows: numberFlag(v, 'expected-rows')!,
    testIds,
    derive: derive ? { size: numberFlag(v, 'test-size') ?? 300, seed } : undefined,
  });
  process.stdout.write(
    `split written: ${plan.train.length} train + ${plan.test.length} test of ${plan.retained.length} retained ` +
      `(${plan.rowsRead} read; excluded ${plan.excluded.other_source} other source, ${plan.excluded.unknown_unlabeled} unknown unlabeled)\n`,
  );
  return 0;
}
