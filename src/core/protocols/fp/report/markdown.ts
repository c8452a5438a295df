// report.md: the same data as report.json, for people (and for pasting into the seed's report).
import { findingsMarkdown } from '../findings/text';
import { formatDuration } from '../prepare/progressMeter';
import type { Report } from './schema';
import { pyFixed } from './pyFormat';

/** Text from data (item ids, messages) outside code blocks: no HTML. */
function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function cell(s: string | number | null): string {
  // Table cells also must not break the table.
  return esc(String(s ?? '—'))
    .replace(/\|/g, '\\|')
    .replace(/\n/g, ' ');
}

function table(head: string[], rows: Array<Array<string | number | null>>): string[] {
  return [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)];
}

function dur(s: number | null): string {
  return s === null ? 'unknown' : `${formatDuration(s)} (${Math.round(s)} s)`;
}

export function reportMarkdown(r: Report): string {
  const out: string[] = [`# fpsweep report`, '', `Package: \`${r.packageDir}\` — generated ${r.generatedAt}`, ''];

  const stop = r.lastRun?.stopReason;
  if (stop) {
    out.push('## The last run stopped on its own', '', `Run ${r.lastRun!.runId} (${r.lastRun!.state}): ${esc(stop.detail)}.`, '');
    out.push(
      `- the server said: \`${stop.message.replace(/`/g, "'")}\`${stop.server ? ` (${stop.server})` : ''}`,
      `- likely: ${esc(stop.meaning)}`,
      `- do: ${esc(stop.action)}`,
      '',
    );
  }
  out.push('## Pre-flight', '');
  const pf = r.preflight;
  if (!pf) out.push('No `logs/preflight.json` yet (no run has sent work).', '');
  else {
    const u = pf.unit;
    out.push(
      `Run ${pf.run_id}, ${pf.ts}: **${pf.ok ? 'ok' : 'FAILED'}**${
        u
          ? ` — ${u.benchmark} / ${u.item_id} / ${u.condition}, ${u.n_frames} frame(s)` +
            `${u.width ? ` ${u.width}×${u.height}` : ''} as ${u.frames_as}, predicted ${u.predicted_prompt_tokens ?? '?'} prompt tokens`
          : ''
      }` + `${pf.problem ? `; ${esc(pf.problem)}` : ''}.`,
      '',
    );
    if (pf.servers.length) {
      out.push(
        ...table(
          ['server', 'result', 'HTTP', 'prompt_tokens', 'finish_reason', 'latency_s', 'problem'],
          pf.servers.map((x) => [
            x.endpoint,
            x.ok ? 'ok' : 'FAILED',
            x.http_status,
            x.prompt_tokens,
            x.finish_reason,
            x.latency_s,
            x.problem ? x.problem.slice(0, 200) : null,
          ]),
        ),
        '',
      );
    }
  }
  out.push('## Pilot timing (seed §4)', '');
  if (!r.timing.present) out.push('No `data/logs/p1_timing.jsonl` yet.', '');
  else {
    out.push(
      `From ${r.timing.lines} line(s) of \`data/logs/p1_timing.jsonl\` ` +
        `(benchmarks: ${r.timing.benchmarks.join(', ') || 'none'}), aggregated exactly as the seed's script:`,
      '',
      '```',
    );
    out.push(...r.timing.rows.map((t) => t.text), '```', '');
  }

  out.push(...bottleneckLines(r.bottleneck));
  const x = r.extrapolation;
  out.push('## Full-run time, extrapolated from the pilot', '');
  if (!x.available) out.push(`Not available: ${x.reason}.`, '');
  else {
    out.push(`Method: ${x.method}.`, '', `Servers: ${x.servers ?? 1} (${x.serversSource}).`, '');
    out.push(
      ...table(
        ['condition', 'todo', 'infer_s/item (pilot)', 'request-seconds', `${x.unit}/item (pilot)`, x.unit],
        x.rows.map((row) => [
          row.condition,
          row.todo,
          row.secondsPerItem === null ? null : pyFixed(row.secondsPerItem, 2),
          row.requestSeconds === null ? null : Math.round(row.requestSeconds),
          row.unitPerItem === null ? null : pyFixed(row.unitPerItem, 2),
          row.work === null ? null : Math.round(row.work),
        ]),
      ),
      '',
    );
    out.push(`- todo: ${x.todoTotal} items`);
    out.push(`- serial (one request at a time per server, an upper bound): **${dur(x.serialSeconds)}**`);
    out.push(
      `- pilot concurrency: ${x.pilotConcurrency === null ? 'unknown (no wall time)' : x.pilotConcurrency.toPrecision(3)} requests in flight per server`,
    );
    if (x.secondsPerUnit !== null) {
      const per = x.bottleneck === 'frames' ? 'of wall time per decode second (the host’s frames)' : `per ${x.unit.replace(/s$/, '')} per server`;
      out.push(`- measured on the bottleneck: ${x.secondsPerUnit.toPrecision(3)} s ${per}`);
    }
    out.push(`- estimate (${x.bottleneck === 'unknown' ? 'no bottleneck verdict' : x.bottleneck}): **${dur(x.estimatedSeconds)}**`);
    if (x.reason) out.push(`- note: ${x.reason}`);
    out.push('');
  }

  out.push('## Wall time', '', `Total: **${dur(r.wallTime.seconds)}** — ${r.wallTime.method}.`, '');
  if (r.wallTime.runs.length)
    out.push(
      ...table(
        ['run', 'started', 'last write', 'seconds'],
        r.wallTime.runs.map((run) => [run.run_id, run.started_at, run.last_write_at, run.seconds === null ? null : Math.round(run.seconds)]),
      ),
      '',
    );

  out.push('## Rows added per condition', '', `Method: ${r.rowsAdded.method}.`, '');
  if (r.rowsAdded.rows.length) {
    out.push(
      ...table(
        ['condition', 'ok', 'NA', 'reuse', 'total', 'raw records'],
        r.rowsAdded.rows.map((row) => [row.condition, row.ok, row.NA, row.reuse, row.total, row.rawRecords]),
      ),
      '',
    );
  }
  out.push(
    `Total: **${r.rowsAdded.total}** rows.${r.rowsAdded.mismatches.length ? ` Rows and raw records differ for: ${r.rowsAdded.mismatches.join(', ')}.` : ''}`,
    '',
  );

  const f = r.failures;
  out.push(
    '## Failures',
    '',
    `**${f.total}** failure(s)${
      Object.keys(f.byKind).length
        ? ` (${Object.entries(f.byKind)
            .map(([k, n]) => `${n} ${k}`)
            .join(', ')})`
        : ''
    }.`,
    '',
  );
  if (f.groups.length)
    out.push(
      ...table(
        ['benchmark', 'condition', 'kind', 'count', 'example item ids', 'example message'],
        f.groups.map((g) => [g.benchmark, g.condition, g.kind, g.count, g.exampleItemIds.join(', '), g.exampleMessage.slice(0, 160)]),
      ),
      '',
    );
  for (const d of f.diagnoses) {
    out.push(`**Diagnosis:** ${esc(d.message)}`, '');
    if (d.logLines.length) out.push('```', ...d.logLines.map((l) => `${l.file}:${l.line}: ${l.text}`), '```', '');
  }
  if (!f.diagnoses.length && f.serverLogLines.length) {
    out.push('Server log lines that look like trouble:', '', '```', ...f.serverLogLines.map((l) => `${l.file}:${l.line}: ${l.text}`), '```', '');
  }

  out.push('## vLLM launch line', '');
  if (!r.launch.present) out.push('No `logs/launch_params.txt` (servers given with --endpoints, or no run yet).', '');
  else out.push(`${r.launch.servers} server(s), ${r.launch.launches} launch(es) recorded:`, '', '```', ...r.launch.lines, '```', '');

  out.push('## Checks (SPEC §6)', '', `From ${r.rawRecords.records} raw record(s) in ${r.rawRecords.files} file(s).`, '');
  out.push(
    ...table(
      ['check', 'result', 'detail'],
      r.checks.map((c) => [c.title, c.status.toUpperCase(), c.detail]),
    ),
    '',
  );
  for (const c of r.checks.filter((k) => k.examples.length)) {
    out.push(`Examples for ${c.id}:`, '', ...c.examples.map((e) => esc(`- ${e.benchmark} / ${e.condition} / ${e.item_id}: ${e.detail}`)), '');
  }

  out.push(...tokenPredictionMarkdown(r.tokenPrediction));
  if (r.findings) out.push(findingsMarkdown(r.findings), '');

  if (r.problemCount) {
    out.push(
      '## Problems in the artifacts',
      '',
      `${r.problemCount} problem(s)${r.problemCount > r.problems.length ? ` (first ${r.problems.length})` : ''}:`,
      '',
    );
    out.push(...r.problems.map((p) => esc(`- ${p.file}:${p.line}: ${p.message}`)), '');
  }
  return out.join('\n');
}

function signed(x: number | null, digits: number): string | null {
  return x === null ? null : `${x > 0 ? '+' : ''}${x.toFixed(digits)}`;
}

function pct(x: number | null): string | null {
  return x === null ? null : `${x > 0 ? '+' : ''}${(100 * x).toFixed(2)} %`;
}

function tokenPredictionMarkdown(t: Report['tokenPrediction']): string[] {
  const out = ['## Prompt-token prediction', '', `Error = ${esc(t.method)}.`, ''];
  if (!t.count) out.push('No answered record carries both numbers yet.', '');
  else {
    out.push(
      `**${t.count}** answered record(s): mean error ${signed(t.mean, 1)} tokens (min ${signed(t.min, 0)}, max ${signed(t.max, 0)}), ` +
        `mean relative ${pct(t.meanRelative)}, largest |relative| ${pct(t.maxAbsRelative)}.`,
      '',
    );
    out.push(
      ...table(
        ['condition', 'records', 'mean', 'min', 'max', 'mean relative'],
        t.byCondition.map((c) => [c.condition, c.count, signed(c.mean, 1), signed(c.min, 0), signed(c.max, 0), pct(c.meanRelative)]),
      ),
      '',
    );
  }
  if (t.withoutPrediction)
    out.push(
      `${t.withoutPrediction} answered record(s) lack usage.prompt_tokens or the prediction (written before predictions were kept) and are left out.`,
      '',
    );
  return out;
}

/** Where the last run's time went, per server (runner/bottleneck.ts). */
function bottleneckLines(b: Report['bottleneck']): string[] {
  const out = ['## Where the time went', ''];
  if (!b) return [...out, 'No verdict: the last run left no bottleneck in .fpsweep/status.json (too few requests, or no run yet).', ''];
  out.push(`Run ${esc(b.runId)}: **${esc(b.line)}**`, '');
  if (b.hostCpuLine) out.push(esc(b.hostCpuLine), '');
  if (b.framesLine) out.push(esc(b.framesLine), '');
  const share = (x: number | null) => (x === null ? null : `${Math.round(100 * x)}%`);
  out.push(
    ...table(
      ['server', 'verdict', 'engine busy', 'in vLLM queue', 'before engine', 'waiting on frames', 'slots full', 'in flight', 'knob'],
      b.servers.map((s) => [
        `${s.index} ${s.endpoint}`,
        s.kind,
        share(s.gpuBusy),
        s.engineQueue === null ? null : s.engineQueue.toFixed(2),
        share(s.frontEndShare),
        share(s.framesWaitShare),
        share(s.slotWaitShare),
        s.meanInFlight.toFixed(1),
        s.knob,
      ]),
    ),
    '',
  );
  return out;
}
