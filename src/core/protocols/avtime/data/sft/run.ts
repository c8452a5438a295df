// `fpsweep avtime build-sft` (SPEC-AVTIME-DATA §4): read both inputs and the prompts, build, write the rows and
// the report together (nothing is written on a refusal).
import * as path from 'node:path';
import type { LineProblem } from '../../../../errors';
import { sha256Text } from '../../stages/files';
import { DataInputError, eachSourceLine, readInputBytes } from '../sourceLines';
import { SOURCE_ROW, SOURCE_ROW_LINE } from '../rowSchema';
import { jsonlBytes, publishFiles, refuseNonEmpty } from '../outputs';
import { rowsOutputs } from '../layout';
import { buildSft, eventsPerRow, type SftBuild, type SftInput } from './build';
import { readSftPrompts } from './prompts';

export interface SftOptions {
  avtimeJsonl: string;
  longvaleJsonl?: string;
  sampleCount: number;
  seed: string;
  outputJsonl: string;
  reportJson: string;
  /** The bench root whose prompts/ the rows use; undefined: the packaged prompts (../../prompts.ts). */
  benchRoot: string | undefined;
}

export const SFT_REPORT_SCHEMA = 'avtime_sft_report_v1';

export async function runBuildSft(o: SftOptions): Promise<{ build: SftBuild; report: Record<string, unknown> }> {
  const dest = rowsOutputs(o.outputJsonl, o.reportJson);
  await refuseNonEmpty(dest.file.outputJsonl, '--output-jsonl');
  await refuseNonEmpty(dest.file.reportJson, '--report-json');
  const prompts = await readSftPrompts(o.benchRoot);
  const sources: { source: SftInput['source']; file: string; flag: string }[] = [
    ...(o.longvaleJsonl !== undefined ? [{ source: 'longvale' as const, file: o.longvaleJsonl, flag: '--longvale-jsonl' }] : []),
    { source: 'avtime', file: o.avtimeJsonl, flag: '--avtime-jsonl' },
  ];
  const inputs: (SftInput & { bytes: Buffer })[] = [];
  // Lines that are not rows (bad JSON, a mistyped field) are found in the same single pass as the build.
  const lineProblems: LineProblem[] = [];
  for (const s of sources) {
    const bytes = await readInputBytes(s.file, s.flag);
    const each: SftInput['each'] = (onRow) => void lineProblems.push(...eachSourceLine(bytes, s.file, SOURCE_ROW, SOURCE_ROW_LINE, onRow).problems);
    inputs.push({ source: s.source, file: s.file, each, bytes });
  }
  const built = buildSft(inputs, prompts, o.sampleCount, o.seed);
  const problems = [...lineProblems, ...('problems' in built ? built.problems : [])];
  if (problems.length || 'problems' in built) throw new DataInputError('SFT data not built', problems);
  const { build } = built;
  const text = jsonlBytes(build.rows.map((r) => JSON.stringify(r)));
  const report = {
    schema_version: SFT_REPORT_SCHEMA,
    inputs: Object.fromEntries(inputs.map((i) => [i.source, { path: i.file, sha256: sha256Text(i.bytes), rows_read: build.tally[i.source].rows_read }])),
    seed: o.seed,
    avtime_sample_count: { requested: o.sampleCount, sampled: build.sampled },
    counts: {
      written: build.rows.length,
      written_by_source: {
        longvale: build.rows.filter((r) => r.metadata.source === 'longvale').length,
        avtime: build.rows.filter((r) => r.metadata.source === 'avtime').length,
      },
      valid: Object.fromEntries(Object.entries(build.tally).map(([k, t]) => [k, t.valid])),
      skipped: Object.fromEntries(Object.entries(build.tally).map(([k, t]) => [k, t.skipped])),
    },
    events: { ...build.events, per_row: eventsPerRow(build.rows) },
    prompts: {
      bench_root: o.benchRoot ?? null,
      system: { file: promptSource(o.benchRoot, prompts.files.system), text: prompts.system, sha256: sha256Text(prompts.system) },
      user: { file: promptSource(o.benchRoot, prompts.files.user), text: prompts.user, sha256: sha256Text(prompts.user) },
    },
    output: { path: o.outputJsonl, rows: build.rows.length, sha256: sha256Text(text) },
    samples: build.rows.slice(0, 3),
  };
  await publishFiles(dest, { outputJsonl: text, reportJson: JSON.stringify(report, null, 2) + '\n' });
  return { build, report };
}

/** A prompt's file relative to its bench root, or the packaged prompt's name as it is. */
const promptSource = (benchRoot: string | undefined, file: string) => (benchRoot === undefined ? file : path.relative(path.resolve(benchRoot), file));
