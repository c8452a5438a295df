// Start-of-run repair, so a crash at any instant resumes with no row lost or doubled (SPEC §4):
//  1. a torn last line of the results CSV goes to conditions_results.csv.torn (appended);
//  2. a torn last line of a raw JSONL goes to <file>.torn likewise;
//  3. a raw record written by an fpsweep run whose CSV row is missing (the crash fell between the
//     raw write and the CSV write) gets its CSV row appended from the raw record — the item is not
//     run again, so its raw line is never doubled.
// Only raw files modified no earlier than the CSV's last write can hold such records (rows are
// written raw-then-CSV, one at a time), so only those are opened; raw records older than the first
// fpsweep run on the package (logs/run_identity.jsonl) are the origin's and are left alone.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { PackageLayout } from '../package/layout';
import { readResultsCsv, type ResultsCsv } from '../package/resultsCsv';
import { setAsideTornTail } from '../package/tornTail';
import { rawRecordSchema, type RawRecord } from '../package/schemas';
import { readLastLines, setAsideTornJsonlTail, type SetAside } from '../../../runner/tornTail';
import { firstRunStart } from '../../../runner/identity';
import { ResultsWriter } from './resultsWriter';
import { parseBoundedJson } from '../../../io/boundedJson';
import { resolveInside } from '../../../containment/resolve';

/** Slack on mtimes (coarse filesystem clocks). */
const MTIME_SLACK_MS = 2000;

export interface ResumeReport {
  csvTorn: { bytes: number; reason: string } | null;
  rawTorn: SetAside[];
  /** Raw records whose CSV row was appended at start. */
  completed: RawRecord[];
  /** Our raw records missing a row that could not be completed (wrong file, bad line): logged. */
  notes: string[];
}

async function mtimeMs(file: string): Promise<number | null> {
  try {
    return (await fs.stat(file)).mtimeMs;
  } catch {
    return null;
  }
}

/** Every results/p1_raw/<cond>/<bench>__DIAG_V.jsonl with its mtime. */
export async function rawFiles(layout: PackageLayout): Promise<{ file: string; cond: string; bench: string; mtime: number }[]> {
  const root = path.join(layout.resultsDir, 'p1_raw');
  const out: { file: string; cond: string; bench: string; mtime: number }[] = [];
  let conds: string[];
  try {
    conds = await fs.readdir(root);
  } catch {
    return out;
  }
  for (const cond of conds) {
    let names: string[];
    try {
      names = await fs.readdir(path.join(root, cond));
    } catch {
      continue;
    }
    for (const n of names) {
      if (!n.endsWith('__DIAG_V.jsonl')) continue;
      const file = path.join(root, cond, n);
      const m = await mtimeMs(file);
      if (m !== null) out.push({ file, cond, bench: n.slice(0, -'__DIAG_V.jsonl'.length), mtime: m });
    }
  }
  return out;
}

export interface ResumeResult {
  csv: ResultsCsv;
  writer: ResultsWriter;
  report: ResumeReport;
}

/** Repairs the results on start and opens the writer. Call with the lock held. */
export async function resumeResults(layout: PackageLayout): Promise<ResumeResult> {
  const raws = await rawFiles(layout);
  // Our own state is read as it will be written: through the containment rules, a link refused with its path
  // before a byte of what it points at is read (issue 42).
  for (const f of [layout.resultsCsv, ...raws.map((r) => r.file)]) await resolveInside(layout.root, f);
  const csvMtime = await mtimeMs(layout.resultsCsv);
  const report: ResumeReport = { csvTorn: null, rawTorn: [], completed: [], notes: [] };
  const aside = await setAsideTornTail(layout);
  if (aside.torn) report.csvTorn = { bytes: aside.torn.bytes.length, reason: aside.torn.reason };
  const csv = await readResultsCsv(layout.resultsCsv);
  const writer = await ResultsWriter.open(layout, csv.header, csv.done);
  const since = await firstRunStart(layout);
  const candidates = raws.filter((r) => csvMtime === null || r.mtime >= csvMtime - MTIME_SLACK_MS);
  for (const r of candidates) {
    const torn = await setAsideTornJsonlTail(r.file);
    if (torn) report.rawTorn.push(torn);
    if (since === null) continue; // no fpsweep run has written here yet
    const lines = await readLastLines(r.file);
    for (const line of lines) {
      let rec: RawRecord;
      try {
        const parsed = rawRecordSchema.safeParse(parseBoundedJson(line));
        if (!parsed.success) continue; // not one of ours (the origin's format): left alone
        rec = parsed.data;
      } catch {
        continue;
      }
      const t = Date.parse(rec.ts);
      if (!(t >= since - MTIME_SLACK_MS)) continue;
      if (writer.isDone(rec.benchmark, rec.item_id, rec.condition)) continue;
      if (rec.benchmark !== r.bench || rec.condition !== r.cond) {
        report.notes.push(`${r.file}: record for (${rec.benchmark}, ${rec.item_id}, ${rec.condition}) is in the wrong file; no row made from it`);
        continue;
      }
      await writer.completeRow(rec);
      csv.done.add(rec.benchmark, rec.item_id, rec.condition);
      report.completed.push(rec);
    }
  }
  return { csv, writer, report };
}
