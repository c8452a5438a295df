// Reads one data step's report from its files (no vscode: tested under plain mocha). `target` is what a step or the
// palette opened: a split's output folder (or its split_manifest.json), or build-sft's / build-grpo's report JSON.
// A missing or malformed file is an Error that names it; the panel shows that message in place of the report.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { DataReportView } from './dataReportTypes';
import { SPLIT_MANIFEST, TEST_IDS } from './dataReportFiles';
import { dataReportKind, grpoView, parseJsonFile, sftView, splitView, type OutputRead } from './dataReportModel';
import { parseBoundedJson } from '../../../../core/io/boundedJson';

/** An output JSONL larger than this is not read for its histogram (the counts still show): it would hold the host. */
export const HISTOGRAM_MAX_BYTES = 512 * 1024 * 1024;

async function readText(file: string, what: string): Promise<string> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? `${file}: no such file (${what})` : `${file}: ${(err as Error).message}`);
  }
}

async function readOutput(file: string): Promise<OutputRead> {
  try {
    const st = await fs.stat(file);
    if (st.size > HISTOGRAM_MAX_BYTES)
      return { ok: false, error: `${file}: ${st.size} bytes, over the ${HISTOGRAM_MAX_BYTES} the panel reads for a histogram` };
    return { ok: true, text: await fs.readFile(file, 'utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, error: code === 'ENOENT' ? `${file}: no such file (the output the report names)` : `${file}: ${(err as Error).message}` };
  }
}

/**
 * The report at `target`. `cwd`: where the verb ran, for the relative output path a report names (the runbook runs
 * the data steps in the workspace folder).
 */
export async function readDataReport(target: string, cwd: string): Promise<DataReportView> {
  const st = await fs.stat(target).catch(() => null);
  if (!st) throw new Error(`${target}: no such file or folder (run the step that writes it first)`);
  const isSplit = st.isDirectory() || path.basename(target) === SPLIT_MANIFEST;
  if (isSplit) {
    const dir = st.isDirectory() ? target : path.dirname(target);
    const manifest = await readText(path.join(dir, SPLIT_MANIFEST), 'the split writes it last: is this a split folder?');
    return splitView(dir, manifest, await readText(path.join(dir, TEST_IDS), "the split's test ids"));
  }
  const text = await readText(target, 'a data report');
  const kind = dataReportKind(parseJsonFile(target, text));
  if (kind === null) throw new Error(`${target}: schema_version is not one of avtime_split_v1, avtime_sft_report_v1, avtime_grpo_report_v1`);
  if (kind === 'split') return splitView(path.dirname(target), text, await readText(path.join(path.dirname(target), TEST_IDS), "the split's test ids"));
  const outputOf = (json: unknown) => {
    const p = (json as { output?: { path?: unknown } }).output?.path;
    return typeof p === 'string' ? path.resolve(cwd, p) : null;
  };
  const out = outputOf(parseBoundedJson(text));
  const output: OutputRead = out ? await readOutput(out) : { ok: false, error: `${target}: output.path: missing` };
  return kind === 'sft' ? sftView(target, text, output) : grpoView(target, text, output);
}
