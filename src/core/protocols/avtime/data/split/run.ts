// `fpsweep avtime split` (SPEC-AVTIME-DATA §1): read, plan, check, then publish the output folder in one rename.
import { sha256Text } from '../../stages/files';
import { DataInputError, eachSourceLine, readInputBytes } from '../sourceLines';
import { SOURCE_ROW, SOURCE_ROW_LINE } from '../rowSchema';
import { publishFolder, refuseNonEmpty } from '../outputs';
import { SplitOutputs } from '../layout';
import { distribution, planSplit, screenRow, type ScreenedLine, type SplitPlan, type SplitRow, type TestChoice } from './plan';
import { parseTestIds } from './testIds';

export interface SplitOptions {
  source: string;
  outputRoot: string;
  expectedRows: number;
  testIds?: string;
  derive?: { size: number; seed: string };
}

export const SPLIT_SCHEMA = 'avtime_split_v1';

export async function runSplit(o: SplitOptions): Promise<{ plan: SplitPlan; manifest: SplitManifest }> {
  await refuseNonEmpty(o.outputRoot, '--output-root');
  const bytes = await readInputBytes(o.source, '--source');
  const lines: ScreenedLine[] = [];
  const read = eachSourceLine(
    bytes,
    o.source,
    SOURCE_ROW,
    SOURCE_ROW_LINE,
    ({ line, start, end, value }) => void lines.push({ line, start, end, screened: screenRow(value) }),
  );
  let choice: TestChoice;
  let idsBytes: Buffer | null = null;
  const problems = [...read.problems];
  if (o.testIds !== undefined) {
    idsBytes = await readInputBytes(o.testIds, '--test-ids');
    const ids = parseTestIds(idsBytes, o.testIds);
    problems.push(...ids.problems);
    choice = { mode: 'frozen', ids: ids.ids, file: o.testIds };
  } else {
    choice = { mode: 'derived', size: o.derive!.size, seed: o.derive!.seed };
  }
  if (problems.length) throw new DataInputError('split refused', problems);
  const planned = planSplit(o.source, lines, choice, o.expectedRows);
  if ('problems' in planned) throw new DataInputError('split refused', planned.problems);
  const { plan } = planned;

  // Encoded once: the same bytes are hashed and written.
  const files: Record<string, Buffer> = {
    'train.jsonl': linesBytes(bytes, plan.train),
    'test.jsonl': linesBytes(bytes, plan.test),
    'test_ids.jsonl': Buffer.from(
      plan.test
        .map(
          (r) =>
            JSON.stringify({
              id: r.id,
              video: r.video,
              duration_ms: r.duration_ms,
              event_count: r.event_count,
              duration_bin: r.duration_bin,
              event_count_bin: r.event_count_bin,
            }) + '\n',
        )
        .join(''),
    ),
  };
  const manifest = splitManifest(o, plan, bytes, idsBytes, files);
  await publishFolder(new SplitOutputs(o.outputRoot), [
    ...Object.entries(files).map(([name, data]) => ({ name, data })),
    { name: 'split_manifest.json', data: JSON.stringify(manifest, null, 2) + '\n' },
  ]);
  return { plan, manifest };
}

/** The rows' exact source bytes, each followed by "\n" (a last line without one gets one): copied, never re-encoded. */
function linesBytes(source: Buffer, rows: readonly SplitRow[]): Buffer {
  let size = 0;
  for (const r of rows) size += r.end - r.start + 1;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const r of rows) {
    at += source.copy(out, at, r.start, r.end);
    out[at++] = 0x0a;
  }
  return out;
}

export type SplitManifest = ReturnType<typeof splitManifest>;

function splitManifest(o: SplitOptions, plan: SplitPlan, source: Buffer, ids: Buffer | null, files: Record<string, Buffer>) {
  const rowsOf: Record<string, number> = { 'train.jsonl': plan.train.length, 'test.jsonl': plan.test.length, 'test_ids.jsonl': plan.test.length };
  const testIds = new Set(plan.test.map((r) => r.id));
  const testVideos = new Set(plan.test.map((r) => r.video));
  const checks = {
    ids_disjoint: plan.train.every((r) => !testIds.has(r.id)),
    videos_disjoint: plan.train.every((r) => !testVideos.has(r.video)),
    covers_retained: plan.train.length + plan.test.length === plan.retained.length,
  };
  if (!Object.values(checks).every(Boolean)) throw new Error(`split checks failed: ${JSON.stringify(checks)}`);
  return {
    schema_version: SPLIT_SCHEMA,
    mode: o.testIds !== undefined ? 'frozen' : 'derived',
    ...(o.testIds === undefined ? { seed: o.derive!.seed } : {}),
    source: { path: o.source, sha256: sha256Text(source), rows_read: plan.rowsRead, rows_retained: plan.retained.length, excluded: plan.excluded },
    ...(ids !== null ? { test_ids_file: { path: o.testIds!, sha256: sha256Text(ids) } } : {}),
    cut_points: plan.cuts,
    outputs: Object.fromEntries(Object.entries(files).map(([name, text]) => [name, { rows: rowsOf[name], sha256: sha256Text(text) }])),
    distributions: { train: distribution(plan.train), test: distribution(plan.test) },
    checks,
  };
}
