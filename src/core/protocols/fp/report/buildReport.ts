// buildReport(packageDir): the report computed from the package's artifacts only — the timing
// log, failures log, results CSV, raw records, launch lines, server logs and run identities —
// plus the dry run's todo counts for the extrapolation. Returns the typed object of schema.ts.
import { writeFileAtomic } from '../../../runner/atomicFile';
import * as path from 'node:path';
import type { LineProblem } from '../../../errors';
import { PackageLayout } from '../package/layout';
import { readOptionalJsonl } from '../../../package/jsonl';
import { readResultsCsv } from '../package/resultsCsv';
import { FAILURE_LINE, failureRecordSchema, timingRecordSchema, type FailureRecord, type TimingRecord } from '../package/schemas';
import { runIdentityFile, runIdentitySchema } from '../../../runner/identity';
import { preflightFile, readPreflight } from '../sweep/preflight';
import { runFramesText } from '../sweep/fpHostCpu';
import { readStatus } from '../status/status';
import { hostCpuText } from '../../../runner/hostCpuStatus';
import type { WorkerStatus } from '../status/statusSchema';
import { DEFAULT_CONDITIONS } from '../rules';
import { dryRun } from '../dryrun/dryRun';
import { aggregateTiming } from './timing';
import { readLaunchParams } from './launchParams';
import { scanServerLogs, vllmLogFiles } from './serverLogs';
import { diagnose, groupFailures, DIAGNOSIS_THRESHOLD } from './failures';
import { scanRawRecords } from './rawChecks';
import { extrapolate, type TodoRow } from './extrapolate';
import { reportSchema, type Report } from './schema';
import { packageFindings } from '../findings';
import { mkdirUnder } from '../../../containment/rootFs';

export interface BuildReportOptions {
  /** Todo counts per benchmark × condition; default: the dry run over every benchmark and the default conditions. */
  todo?: () => Promise<TodoRow[]>;
  now?: Date;
}

async function readLog<T>(
  file: string,
  schema: Parameters<typeof readOptionalJsonl<T>>[1],
  expected: string,
  problems: LineProblem[],
): Promise<{ present: boolean; records: T[]; lines: number }> {
  const res = await readOptionalJsonl(file, schema, { expected });
  problems.push(...res.problems);
  return { present: res.present, records: res.records.map((r) => r.value), lines: res.records.length + res.problems.length };
}

async function defaultTodo(root: string): Promise<TodoRow[]> {
  const r = await dryRun(root, { conditions: DEFAULT_CONDITIONS });
  return r.rows.map((x) => ({ benchmark: x.benchmark, condition: x.condition, todo: x.todo }));
}

/** The last run's verdicts as the report carries them; null when it has none. */
async function reportBottleneck(layout: PackageLayout, st: WorkerStatus | null): Promise<Report['bottleneck']> {
  if (!st?.bottleneck) return null;
  const servers = st.servers.flatMap((s) => (s.bottleneck ? [{ ...s.bottleneck, index: s.index, endpoint: s.endpoint }] : []));
  const hostCpu = st.hostCpu ?? null;
  const framesLine = await runFramesText(layout, st.runId);
  return {
    runId: st.runId,
    kind: st.bottleneck.kind,
    line: st.bottleneck.line,
    servers,
    hostCpu,
    hostCpuLine: hostCpu ? hostCpuText(hostCpu) : null,
    framesLine,
  };
}

export async function buildReport(packageDir: string, opts: BuildReportOptions = {}): Promise<Report> {
  const layout = new PackageLayout(packageDir);
  const problems: LineProblem[] = [];

  const timing = await readLog<TimingRecord>(
    layout.timingLog,
    timingRecordSchema,
    'a timing line {benchmark, condition, infer, infer_s, decode_s, prompt_tokens, na, reuse, failed, wall_s}',
    problems,
  );
  const failures = await readLog<FailureRecord>(layout.failuresLog, failureRecordSchema, FAILURE_LINE, problems);
  const identities = await readLog(runIdentityFile(layout), runIdentitySchema, 'a run identity line', problems);
  const runs = identities.records
    .map((r) => ({ run_id: r.run_id, started_at: r.started_at, t: Date.parse(r.started_at) }))
    .filter((r) => Number.isFinite(r.t))
    .sort((a, b) => a.t - b.t);
  const runStarts = runs.map((r) => r.t);

  // Raw records: the §6 checks, the rows-added cross-check, the runs' last writes.
  const raw = await scanRawRecords(path.join(layout.resultsDir, 'p1_raw'), runStarts);
  problems.push(...raw.problems);
  const lastWrite = [...raw.lastWriteByRun];
  for (const f of failures.records) {
    const t = Date.parse(f.ts);
    if (!Number.isFinite(t)) continue;
    for (let i = runStarts.length - 1; i >= 0; i--) {
      if (runStarts[i] <= t) {
        lastWrite[i] = Math.max(lastWrite[i] ?? t, t);
        break;
      }
    }
  }
  const runSpans = runs.map((r, i) => ({
    run_id: r.run_id,
    started_at: r.started_at,
    last_write_at: lastWrite[i] !== null ? new Date(lastWrite[i]!).toISOString() : null,
    seconds: lastWrite[i] !== null ? (lastWrite[i]! - r.t) / 1000 : null,
  }));
  const wallSeconds = runSpans.length ? runSpans.reduce((a, r) => a + (r.seconds ?? 0), 0) : null;

  // Rows added: CSV rows whose ts is at or after the first fpsweep run on this package.
  const windowStart = runStarts.length ? runStarts[0] : null;
  const csv = await readResultsCsv(layout.resultsCsv, { keepRows: true });
  problems.push(...csv.problems);
  const added = new Map<string, { ok: number; NA: number; reuse: number; total: number }>();
  if (csv.header && windowStart !== null) {
    const ci = csv.header.indexOf('condition');
    const si = csv.header.indexOf('status');
    const ti = csv.header.indexOf('ts');
    if (ti >= 0) {
      for (const row of csv.rows) {
        const t = Date.parse(row[ti] ?? '');
        if (!Number.isFinite(t) || t < windowStart) continue;
        const c = added.get(row[ci]) ?? { ok: 0, NA: 0, reuse: 0, total: 0 };
        const st = row[si];
        if (st === 'ok' || st === 'NA' || st === 'reuse') c[st]++;
        c.total++;
        added.set(row[ci], c);
      }
    }
  }
  const conds = [...new Set([...added.keys(), ...raw.inWindow.keys()])].sort();
  const rowsAddedRows = conds.map((condition) => {
    const c = added.get(condition) ?? { ok: 0, NA: 0, reuse: 0, total: 0 };
    const rawN = [...(raw.inWindow.get(condition)?.values() ?? [])].reduce((a, b) => a + b, 0);
    return { condition, ...c, rawRecords: rawN };
  });

  const launch = await readLaunchParams(layout.launchParams);
  const serverLogLines = await scanServerLogs(await vllmLogFiles(layout.logsDir));
  const { byKind, groups } = groupFailures(failures.records);
  const timingRows = aggregateTiming(timing.records);

  let servers: number | null = launch.servers || null;
  let serversSource = launch.servers ? 'distinct launch lines in logs/launch_params.txt' : '';
  if (!servers) {
    const lastRun = identities.records[identities.records.length - 1];
    if (lastRun && lastRun.endpoints.length) {
      servers = lastRun.endpoints.length;
      serversSource = 'endpoints of the last run in logs/run_identity.jsonl';
    } else serversSource = 'unknown (no launch lines, no run identity): estimates are per server';
  }
  let todoRows: TodoRow[] | null = null;
  let todoError: string | null = null;
  try {
    todoRows = await (opts.todo ?? (() => defaultTodo(layout.root)))();
  } catch (err) {
    todoError = `the dry run failed: ${(err as Error).message}`;
  }
  const lastStatus = await readStatus(layout).catch(() => null);
  const bottleneck = await reportBottleneck(layout, lastStatus);
  const extrapolation = extrapolate(
    timingRows,
    todoRows,
    todoError,
    servers,
    serversSource,
    timingRows.reduce((a, r) => a + r.infer_s, 0),
    wallSeconds,
    bottleneck,
  );

  const report: Report = {
    version: 1,
    generatedAt: (opts.now ?? new Date()).toISOString(),
    packageDir: layout.root,
    timing: {
      file: layout.timingLog,
      present: timing.present,
      lines: timing.lines,
      benchmarks: [...new Set(timing.records.map((r) => r.benchmark))],
      rows: timingRows,
      cellWallSeconds: timing.records.reduce((a, r) => a + r.wall_s, 0),
    },
    extrapolation,
    bottleneck,
    wallTime: {
      seconds: wallSeconds,
      method: runs.length
        ? 'per fpsweep run: from started_at in logs/run_identity.jsonl to the last raw record or failure written before the next run started; ' +
          'summed over runs (time between runs is not counted)'
        : 'unknown: logs/run_identity.jsonl is missing, so runs cannot be told apart',
      runs: runSpans,
    },
    rowsAdded: {
      method:
        windowStart !== null
          ? 'CSV rows whose ts is at or after the first fpsweep run on this package (logs/run_identity.jsonl), by condition and status; ' +
            'rawRecords counts the raw records in the same window (each row is appended only after its raw record, so the two must match)'
          : "unknown: logs/run_identity.jsonl is missing, so the rows this package added cannot be told from the origin's",
      windowStart: windowStart !== null ? new Date(windowStart).toISOString() : null,
      rows: rowsAddedRows,
      total: rowsAddedRows.reduce((a, r) => a + r.total, 0),
      mismatches: rowsAddedRows.filter((r) => r.total !== r.rawRecords).map((r) => r.condition),
    },
    failures: {
      file: layout.failuresLog,
      present: failures.present,
      total: failures.records.length,
      byKind,
      groups,
      diagnosisThreshold: DIAGNOSIS_THRESHOLD,
      diagnoses: diagnose(groups, serverLogLines),
      serverLogLines,
    },
    findings: await packageFindings(layout.root).catch((err) => {
      problems.push({ file: layout.resultsCsv, line: 0, message: `findings not computed: ${(err as Error).message}` });
      return null;
    }),
    preflight: await readPreflight(layout).catch((err) => {
      problems.push({ file: preflightFile(layout), line: 1, message: (err as Error).message });
      return null;
    }),
    lastRun: lastStatus && { runId: lastStatus.runId, state: lastStatus.state, summary: lastStatus.summary, stopReason: lastStatus.stopReason ?? null },
    launch: { file: layout.launchParams, present: launch.present, lines: launch.lines, servers: launch.servers, launches: launch.launches },
    checks: raw.checks,
    tokenPrediction: raw.tokenPrediction,
    rawRecords: { files: raw.files, records: raw.records },
    problems: problems.slice(0, 100),
    problemCount: problems.length + (raw.problemCount - raw.problems.length),
  };
  return reportSchema.parse(report);
}

/** Writes .fpsweep/reports/report.json and report.md (each atomically). */
export async function writeReport(packageDir: string, report: Report, markdown: string): Promise<{ json: string; md: string }> {
  const layout = new PackageLayout(packageDir);
  await mkdirUnder(layout.root, layout.reportsDir);
  const json = path.join(layout.reportsDir, 'report.json');
  const md = path.join(layout.reportsDir, 'report.md');
  for (const [file, text] of [
    [json, JSON.stringify(report, null, 1) + '\n'],
    [md, markdown],
  ] as const) {
    await writeFileAtomic(layout.root, file, text);
  }
  return { json, md };
}
