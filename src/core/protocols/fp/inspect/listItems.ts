// A benchmark's items with their answer under one condition (`fpsweep inspect --package DIR --benchmark B
// --condition C --json`, no --item): the tree's benchmark × condition → items, to pick one to inspect.
import { readJsonl } from '../../../package/jsonl';
import { PackageLayout } from '../package/layout';
import { failureRecordSchema, itemSchema } from '../package/schemas';
import { DEFAULT_CONDITIONS, parseCondition } from '../rules';
import { benchmarkRows, linesNaming, readText } from './itemRecords';
import type { ItemList } from './types';
import { InputError } from '../../../errors';

export async function listItems(root: string, benchmark: string, condition: string): Promise<ItemList & { problems: string[] }> {
  parseCondition(condition);
  const layout = new PackageLayout(root);
  const file = layout.samplesFile(benchmark);
  let items;
  try {
    items = await readJsonl(file, itemSchema);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new InputError(`no benchmark ${benchmark} in this package (${file} does not exist)`);
    throw err;
  }
  const rows = await benchmarkRows(layout, benchmark);
  const problems = items.problems.map((p) => `${p.file}:${p.line}: ${p.message}`);
  // Items whose last attempt under the condition failed and that have no row: `failed`, as the tree counts them.
  const failText = await readText(layout.failuresLog);
  const failed = new Set(
    failText === null
      ? []
      : linesNaming(failText, layout.failuresLog, benchmark, failureRecordSchema, problems)
          .filter((f) => f.benchmark === benchmark && f.condition === condition)
          .map((f) => f.item_id),
  );
  // A condition the sweep does not run and no row or failure of this benchmark names is a typo (exit 2), not a list of 'none'.
  const named = new Set([...DEFAULT_CONDITIONS, ...[...rows.values()].flatMap((byCondition) => [...byCondition.keys()])]);
  if (!named.has(condition) && failed.size === 0)
    throw new InputError(`--condition ${condition}: no such condition for ${benchmark} in this package (conditions: ${[...named].join(', ')})`);
  return {
    benchmark,
    condition,
    items: items.records.map(({ value: it }) => {
      const row = rows.get(it.item_id)?.get(condition);
      const status = row?.status;
      const answered = status === 'ok' || status === 'reuse';
      return {
        item_id: it.item_id,
        video_id: it.video_id,
        question: it.question,
        answer: it.answer,
        state: status === 'ok' || status === 'NA' || status === 'reuse' ? status : failed.has(it.item_id) ? 'failed' : 'none',
        pred: answered ? (row!.pred ?? '') : null,
        correct: answered && (row!.correct === '1' || row!.correct === '0') ? row!.correct === '1' : null,
      };
    }),
    problems,
  };
}
