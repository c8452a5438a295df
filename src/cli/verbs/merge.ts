// fpsweep merge --into DIR SHARD_DIR...: the results of `run --shard K/N` copies appended into DIR
// (src/core/protocols/fp/merge/merge.ts says what is checked and in which order things are written).
import { UsageError } from '../../core/errors';
import { mergeShards } from '../../core/protocols/fp/merge/merge';
import { completenessLines } from '../../core/protocols/fp/merge/completeness';
import { checkPathValue, fpPackageRoot, parseCommandArgs, stringFlag, type OptionSpec } from '../../core/cli/options';

export const summary = 'bring the results of `run --shard K/N` copies back into one package (checked, append only)';

const HELP = `usage: fpsweep merge --into DIR [--allow-partial] SHARD_DIR [SHARD_DIR...]

Appends into DIR the new rows and raw records (results/), failure and timing lines (data/logs/)
of each shard copy, its run identities to logs/run_identity.jsonl, and its logs under
logs/shards/<name>/ (name: shard-K-of-N). As a run does: under DIR's lock, each raw record fsynced
before its row, nothing already in DIR rewritten. Refused, with nothing written: a shard made from
another package (its items, manifest, scope or videos manifest differ), a key with two different
contents (both places named), a row without its raw record. Merging a shard again adds nothing;
a merge that was cut short is finished by running it again.

Complete or refused: the plan the copies ran (their benchmarks, conditions and shard count, from
logs/run_identity.jsonl) must be done once they are in, each unit with a row or a failure line.
Otherwise exit 1, nothing written, naming what each shard still has to do and the command that
finishes it (a task cut short, a shard no copy ran). \`fpsweep status --package DIR SHARD_DIR...\`
shows the same without merging.

  --into DIR        the package to merge into (the one the shard copies were made from)
  --allow-partial   merge what the copies have even when units of the plan are left (said, exit 0)

Rerun: resumes: a merge cut short is finished; a shard merged before adds nothing (exit 0).`;

export const flags = {
  into: { type: 'string', meta: 'DIR', value: { kind: 'path', is: 'dir', root: fpPackageRoot } },
  'allow-partial': { type: 'boolean' },
} satisfies OptionSpec;
/** SHARD_DIR…: each an existing run package (a copy `run --shard K/N` ran on). */
export const positionals = [{ name: 'SHARD_DIR', rule: { kind: 'path', is: 'dir', root: fpPackageRoot } }] as const;

export async function run(args: string[]): Promise<number> {
  const { values, positionals: given } = parseCommandArgs(args, flags, true, HELP);
  const into = stringFlag(values, 'into');
  if (!into) throw new UsageError(`--into DIR is required\n\n${HELP}`);
  if (given.length === 0) throw new UsageError(`name at least one shard copy to merge\n\n${HELP}`);
  // Each copy checked (an existing run package) and made absolute here, as the flags are.
  const shards = given.map((p) => checkPathValue('SHARD_DIR', positionals[0].rule, p));
  const res = await mergeShards({
    into,
    shards,
    allowPartial: values['allow-partial'] === true,
    onLine: (l) => process.stderr.write(l + '\n'),
  });
  for (const n of res.notes) process.stderr.write(`note: ${n}\n`);
  const gaps = completenessLines(res.completeness);
  const failedWords = res.completeness.failed ? `; ${res.completeness.failed} unit(s) failed (data/logs/failures.jsonl; a run asks them again)` : '';
  if (!res.merged) {
    process.stderr.write(
      `merge refused, nothing written: the copies leave ${res.completeness.left} unit(s) of their plan undone${failedWords}:\n` +
        gaps.map((g) => `  ${g}\n`).join('') +
        'merge them anyway with --allow-partial\n',
    );
    return 1;
  }
  if (res.completeness.left > 0) {
    process.stderr.write(`partial merge (--allow-partial): ${res.completeness.left} unit(s) of the plan left undone:\n` + gaps.map((g) => `  ${g}\n`).join(''));
  }
  const rows = res.shards.reduce((a, s) => a + s.rows, 0);
  process.stdout.write(
    `merged ${res.shards.length} shard(s) into ${res.into}: ${rows} row(s) added; ` +
      `${res.completeness.left === 0 ? 'the plan is complete' : `${res.completeness.left} unit(s) left`}${failedWords}\n`,
  );
  return 0;
}
