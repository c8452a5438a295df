// `fpsweep avtime split`: flags → SplitOptions (SPEC-AVTIME-DATA §1, the seed's defaults).
import { UsageError } from '../../../../errors';
import { intOption, parseVerbArgs } from '../../../../cli/options';
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

Exit: 0 written, 2 bad usage or input (file:line named, nothing written).`;

export async function run(args: string[]): Promise<number> {
  const v = parseVerbArgs(
    args,
    {
      source: { type: 'string' },
      'output-root': { type: 'string' },
      'test-ids': { type: 'string' },
      'derive-test-ids': { type: 'boolean' },
      'test-size': { type: 'string' },
      seed: { type: 'string' },
      'expected-rows': { type: 'string' },
    },
    HELP,
  );
  if (typeof v.source !== 'string' || v.source === '') throw new UsageError(`--source FILE is required\n\n${HELP}`);
  const derive = v['derive-test-ids'] === true;
  const testIds = typeof v['test-ids'] === 'string' ? v['test-ids'] : undefined;
  if (derive === (testIds !== undefined)) throw new UsageError(`give exactly one of --test-ids FILE and --derive-test-ids\n\n${HELP}`);
  if (!derive && (v['test-size'] !== undefined || v.seed !== undefined)) throw new UsageError('--test-size and --seed go with --derive-test-ids');
  const seed = typeof v.seed === 'string' ? v.seed : 'AVTime-50K-public-split-v1';
  const { plan } = await runSplit({
    source: v.source,
    outputRoot: typeof v['output-root'] === 'string' ? v['output-root'] : 'outputs/avtime-50k-split',
    expectedRows: intOption(v['expected-rows'], '--expected-rows', 49977, 0)!,
    testIds,
    derive: derive ? { size: intOption(v['test-size'], '--test-size', 300)!, seed } : undefined,
  });
  process.stdout.write(
    `split written: ${plan.train.length} train + ${plan.test.length} test of ${plan.retained.length} retained ` +
      `(${plan.rowsRead} read; excluded ${plan.excluded.other_source} other source, ${plan.excluded.unknown_unlabeled} unknown unlabeled)\n`,
  );
  return 0;
}
