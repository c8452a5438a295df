// `fpsweep avtime build-grpo` (SPEC-AVTIME-DATA §5): every row checked (all problems listed, exit 2, nothing
// written), then the rows without their assistant message, with schema, task and the compact solution,
// in seeded-rank order unless --no-shuffle; rows and report published together.
import { promises as fs } from 'node:fs';
import { InputError, type LineProblem } from '../../../../errors';
import { sha256Text } from '../../stages/files';
import { DataInputError, eachSourceLine, readInputBytes } from '../sourceLines';
import { SOURCE_ROW, SOURCE_ROW_LINE } from '../rowSchema';
import { jsonlBytes, publishFiles, refuseNonEmpty } from '../outputs';
import { rowsOutputs } from '../layout';
import { bySeededRank } from '../seededRank';
import { checkGrpoRow } from './checks';
import { mediaProblem } from './media';

export const GRPO_SCHEMA = 'avtime_btsc_grpo_v1';
export const GRPO_TASK = 'bitsc';

export interface GrpoOptions {
  inputJsonl: string;
  outputJsonl: string;
  reportJson: string;
  seed: string;
  shuffle: boolean;
  mediaRoot?: string;
}

export async function runBuildGrpo(o: GrpoOptions): Promise<{ rows: number; report: Record<string, unknown> }> {
  const dest = rowsOutputs(o.outputJsonl, o.reportJson);
  await refuseNonEmpty(dest.file.outputJsonl, '--output-jsonl');
  await refuseNonEmpty(dest.file.reportJson, '--report-json');
  const realRoot = o.mediaRoot === undefined ? null : await fs.realpath(o.mediaRoot).catch(() => null);
  if (o.mediaRoot !== undefined && realRoot === null) throw new InputError(`--media-root ${o.mediaRoot}: no such folder`);
  const bytes = await readInputBytes(o.inputJsonl, '--input-jsonl');
  const problems: LineProblem[] = [];
  // Each row is turned into its output line as it is read: only the line and the id are kept.
  const out: { id: string; json: string; line: number; video: string }[] = [];
  const idAt = new Map<string, number>();
  let events = 0;
  let rowsRead = 0;
  const read = eachSourceLine(bytes, o.inputJsonl, SOURCE_ROW, SOURCE_ROW_LINE, ({ line, value }) => {
    rowsRead++;
    const at = (message: string) => problems.push({ file: o.inputJsonl, line, message });
    const checked = checkGrpoRow(value);
    if (!checked.ok) return void checked.problems.forEach(at);
    const id = value.id!;
    const first = idAt.get(id);
    if (first !== undefined) at(`id '${id}' already on line ${first}; expected unique ids`);
    else idAt.set(id, line);
    events += checked.events.length;
    const row: Record<string, unknown> = { ...value, messages: value.messages!.filter((m) => m.role !== 'assistant') };
    Object.assign(row, { schema: GRPO_SCHEMA, task: GRPO_TASK, solution: JSON.stringify(checked.events) });
    out.push({ id, json: JSON.stringify(row), line, video: value.videos![0] });
  });
  problems.push(...read.problems);
  if (realRoot !== null)
    for (const r of out) {
      const m = await mediaProblem(r.video, realRoot);
      if (m) problems.push({ file: o.inputJsonl, line: r.line, message: m });
    }
  problems.sort((a, b) => a.line - b.line);
  if (problems.length) throw new DataInputError('GRPO data not built', problems);
  const ordered = o.shuffle ? bySeededRank(out, o.seed, (r) => r.id) : out;
  const text = jsonlBytes(ordered.map((r) => r.json));
  const report = {
    schema_version: 'avtime_grpo_report_v1',
    schema: GRPO_SCHEMA,
    task: GRPO_TASK,
    seed: o.seed,
    shuffle: o.shuffle,
    check_media: realRoot !== null ? { media_root: o.mediaRoot } : null,
    input: { path: o.inputJsonl, sha256: sha256Text(bytes), rows_read: rowsRead },
    counts: { written: ordered.length, events },
    output: { path: o.outputJsonl, rows: ordered.length, sha256: sha256Text(text) },
  };
  await publishFiles(dest, { outputJsonl: text, reportJson: JSON.stringify(report, null, 2) + '\n' });
  return { rows: ordered.length, report };
}
