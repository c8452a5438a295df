// The findings as text: the terminal table of `fpsweep findings` and the report's Markdown section.
import type { BenchmarkFindings, Contrast, Findings } from './types';
import { CONTRAST_NAMES } from './types';
import { fmtP } from './verdict';

const num = (x: number | null | undefined, d = 1) => (x === null || x === undefined ? '—' : x.toFixed(d));
const sgn = (x: number | null) => (x === null ? '—' : `${x >= 0 ? '+' : ''}${x.toFixed(1)}`);

function contrastCell(c: Contrast): string {
  if (c.n === 0) return '—';
  return `${sgn(c.delta)} [${num(c.lo)},${num(c.hi)}] ${c.q !== null ? 'q' : 'p'}=${fmtP(c.q ?? c.p)} n=${c.n}`;
}

function pad(rows: string[][]): string {
  const w = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) =>
      r
        .map((s, i) => s.padEnd(w[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** One line per benchmark: verdict, chance, blind and v_32 accuracy, the four contrasts (Δ points, 95 % interval, q or p, pairs). */
export function findingsTable(f: Findings): string {
  const rows = [['benchmark', 'verdict', 'chance', 'v_blind', 'v_32', ...CONTRAST_NAMES.map((n) => `${n} Δ [95 %]`)]];
  for (const b of f.benchmarks) {
    rows.push([
      b.benchmark,
      b.verdict,
      num(b.chance),
      num(b.cells['v_blind']?.acc),
      num(b.cells['v_32']?.acc),
      ...CONTRAST_NAMES.map((n) => contrastCell(b.contrasts[n])),
    ]);
  }
  const counts = new Map<string, number>();
  for (const b of f.benchmarks) counts.set(b.verdict, (counts.get(b.verdict) ?? 0) + 1);
  const tally = [...counts].map(([v, n]) => `${n} ${v}`).join(', ');
  return `${pad(rows)}\n\nδ = ${f.delta_pts} points, α = ${f.alpha}; accuracies and Δ in points; ${f.benchmarks.length} benchmark(s): ${tally || 'none'}`;
}

/** Data text outside code blocks: no HTML, no table breaks. */
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '\\|');

function benchmarkMarkdown(b: BenchmarkFindings): string[] {
  const lines = [
    `### ${esc(b.benchmark)}: ${b.verdict}`,
    '',
    esc(b.why),
    '',
    '| condition | n | k | acc | Wilson 95 % | NA | reuse |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const [cond, c] of Object.entries(b.cells)) {
    lines.push(`| ${esc(cond)} | ${c.n} | ${c.k} | ${num(c.acc)} | ${c.lo === null ? '—' : `${num(c.lo)}–${num(c.hi)}`} | ${c.na ?? 0} | ${c.reuse ?? 0} |`);
  }
  lines.push('', '| contrast | pairs | b | c | Δ | 95 % interval | p | q | MDE |', '| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const n of CONTRAST_NAMES) {
    const c = b.contrasts[n];
    const ci = c.lo === null ? '—' : `${num(c.lo)} to ${num(c.hi)}`;
    lines.push(`| ${n} | ${c.n} | ${c.b} | ${c.c} | ${sgn(c.delta)} | ${ci} | ${fmtP(c.p)} | ${fmtP(c.q)} | ${num(c.mde)} |`);
  }
  for (const fl of b.flags ?? []) lines.push('', `> flag: ${esc(fl.message)}`);
  return lines;
}

/** The report's findings section. */
export function findingsMarkdown(f: Findings): string {
  const lines = ['## Findings: pixels, frames, both or neither', '', '```', findingsTable(f), '```', ''];
  if (f.method) lines.push(`Method: ${f.method}`, '');
  for (const b of f.benchmarks) lines.push(...benchmarkMarkdown(b), '');
  return lines.join('\n');
}
