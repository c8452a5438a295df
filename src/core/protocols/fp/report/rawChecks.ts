// The checks of SPEC §6 (seed §5), computed from the raw records in results/p1_raw, streamed one
// line at a time (a full run holds ~230k records). Each check says pass / fail / skip (nothing to
// check) with counts and up to five examples.
import { createReadStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { z } from 'zod';
import type { LineProblem } from '../../../errors';
import { describeZodError } from '../../../package/jsonl';
import { parseCondition, seedTokensPerFrame, fpsFrameCap } from '../rules';
import type { Check } from './schema';
import { TokenPredictionAcc, type TokenPrediction } from './tokenPrediction';
import { parseBoundedJson } from '../../../io/boundedJson';

/** The fields the checks read (a light schema: the full one is the runner's business). */
const rawLineSchema = z
  .object({
    benchmark: z.string(),
    item_id: z.string(),
    condition: z.string(),
    status: z.string(),
    ts: z.string(),
    usage: z.object({ prompt_tokens: z.number().nullable().optional() }).passthrough().nullable().optional(),
    meta: z
      .object({
        n_frames_used: z.number().nullable(),
        timestamps: z.array(z.number()).nullable(),
        width: z.number().nullable(),
        height: z.number().nullable(),
        tokens_per_frame: z.number().nullable(),
        capped_ctx: z.boolean().nullable(),
        n_grid: z.number().nullable(),
        n_max: z.number().nullable(),
        predicted_prompt_tokens: z.number().nullable().optional(),
      })
      .passthrough(),
  })
  .passthrough();
type RawLine = z.infer<typeof rawLineSchema>;

/** The seed's literal: N_max for 16:9 videos at short side 224 (97 tokens per frame). */
export const N_MAX_16_9 = 582;
const LONG_VIDEO_BENCHMARKS = new Set(['LVBench', 'TimeScope']);
const EXAMPLES = 5;

class CheckAcc {
  checked = 0;
  violations = 0;
  examples: Check['examples'] = [];
  constructor(
    readonly id: string,
    readonly title: string,
  ) {}
  pass(): void {
    this.checked++;
  }
  fail(r: RawLine, detail: string): void {
    this.checked++;
    this.violations++;
    if (this.examples.length < EXAMPLES) this.examples.push({ benchmark: r.benchmark, condition: r.condition, item_id: r.item_id, detail });
  }
  result(detailPass: string, detailFail: string, detailSkip: string): Check {
    const status = this.checked === 0 ? 'skip' : this.violations ? 'fail' : 'pass';
    const detail =
      status === 'skip'
        ? detailSkip
        : status === 'fail'
          ? `${this.violations} of ${this.checked} records: ${detailFail}`
          : `${this.checked} records: ${detailPass}`;
    return { id: this.id, title: this.title, status, detail, checked: this.checked, violations: this.violations, examples: this.examples };
  }
}

export interface RawScan {
  files: number;
  records: number;
  checks: Check[];
  /** condition → status → count, for records with ts at or after the first run's start. */
  inWindow: Map<string, Map<string, number>>;
  /** Per run (same order as runStarts): the latest record ts in [start, next start), ms. */
  lastWriteByRun: Array<number | null>;
  problems: LineProblem[];
  problemCount: number;
  /** usage.prompt_tokens against the predicted prompt tokens, over answered records. */
  tokenPrediction: TokenPrediction;
}

function fpsOf(condition: string): number | null {
  try {
    const c = parseCondition(condition);
    return c.kind === 'fps' ? c.fps : null;
  } catch {
    return null;
  }
}

function is16by9(w: number, h: number): boolean {
  const r = Math.max(w, h) / Math.min(w, h);
  return Math.abs(r - 16 / 9) < 0.01;
}

async function rawFiles(rawRoot: string): Promise<string[]> {
  const out: string[] = [];
  let conds: string[];
  try {
    conds = (await fs.readdir(rawRoot)).sort();
  } catch {
    return out;
  }
  for (const c of conds) {
    let names: string[];
    try {
      names = (await fs.readdir(path.join(rawRoot, c))).sort();
    } catch {
      continue;
    }
    for (const n of names) if (n.endsWith('__DIAG_V.jsonl')) out.push(path.join(rawRoot, c, n));
  }
  return out;
}

/** Index of the run a time belongs to (runStarts ascending), or -1 before the first run. */
export function runIndexOf(runStarts: readonly number[], t: number): number {
  let lo = 0;
  let hi = runStarts.length - 1;
  let ans = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (runStarts[mid] <= t) {
      ans = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return ans;
}

export async function scanRawRecords(rawRoot: string, runStarts: readonly number[]): Promise<RawScan> {
  const lastWriteByRun: Array<number | null> = runStarts.map(() => null);
  const capRule = new CheckAcc('capped_ctx_rule', 'capped_ctx == (n_grid > n_max) on every fps record, and n_frames_used == min(n_grid, n_max)');
  const nMaxFormula = new CheckAcc(
    'n_max_formula',
    'n_max == min(1024, floor((58000 − 1500) / tokens_per_frame)) at the dims sent, tokens_per_frame = ceil(w/32)·ceil(h/32) + 6',
  );
  const nMax169 = new CheckAcc('n_max_16_9', 'n_max is 582 for 16:9 videos (s224)');
  const mvbench = new CheckAcc('mvbench_never_capped', 'MVBench is never capped (capped_ctx false at every fps condition)');
  const longCapped = new CheckAcc(
    'long_videos_capped',
    'LVBench / TimeScope: long videos capped at fps1 and fps2; fps0.25 capped only beyond ~n_max / 0.25 s (≈ 2,330 s)',
  );
  const longCounts = new Map<string, { capped: number; total: number }>();
  const inWindow = new Map<string, Map<string, number>>();
  const prediction = new TokenPredictionAcc();
  const problems: LineProblem[] = [];
  let problemCount = 0;
  let records = 0;
  const files = await rawFiles(rawRoot);

  for (const file of files) {
    const rl = readline.createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
    let lineNo = 0;
    for await (const line of rl) {
      lineNo++;
      if (!line.trim()) continue;
      let r: RawLine;
      try {
        const parsed = rawLineSchema.safeParse(parseBoundedJson(line));
        if (!parsed.success) throw new Error(describeZodError(parsed.error));
        r = parsed.data;
      } catch (err) {
        problemCount++;
        if (problems.length < 100) problems.push({ file, line: lineNo, message: `${(err as Error).message}; expected a raw record (SPEC §4); not checked` });
        continue;
      }
      records++;
      const t = Date.parse(r.ts);
      const run = Number.isFinite(t) ? runIndexOf(runStarts, t) : -1;
      if (run >= 0) {
        lastWriteByRun[run] = Math.max(lastWriteByRun[run] ?? t, t);
        {
          let byStatus = inWindow.get(r.condition);
          if (!byStatus) inWindow.set(r.condition, (byStatus = new Map()));
          byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
        }
      }
      const fps = fpsOf(r.condition);
      const m = r.meta;
      if (r.status === 'ok') prediction.add(r.condition, r.usage?.prompt_tokens, m.predicted_prompt_tokens);
      if (r.benchmark === 'MVBench' && fps !== null && r.status === 'ok') {
        if (m.capped_ctx === false) mvbench.pass();
        else mvbench.fail(r, `capped_ctx = ${m.capped_ctx} (n_grid ${m.n_grid}, n_max ${m.n_max})`);
      }
      if (fps === null || r.status !== 'ok') continue;
      // capped_ctx == (n_grid > n_max), and the frames sent follow from it.
      if (typeof m.n_grid !== 'number' || typeof m.n_max !== 'number' || typeof m.capped_ctx !== 'boolean') {
        capRule.fail(r, `missing n_grid / n_max / capped_ctx (${m.n_grid} / ${m.n_max} / ${m.capped_ctx})`);
        continue;
      }
      const expectCapped = m.n_grid > m.n_max;
      if (m.capped_ctx !== expectCapped) capRule.fail(r, `capped_ctx = ${m.capped_ctx} but n_grid ${m.n_grid} ${expectCapped ? '>' : '<='} n_max ${m.n_max}`);
      else if (m.n_frames_used !== Math.min(m.n_grid, m.n_max))
        capRule.fail(r, `n_frames_used = ${m.n_frames_used}, expected min(n_grid ${m.n_grid}, n_max ${m.n_max})`);
      else capRule.pass();
      if (typeof m.width === 'number' && typeof m.height === 'number') {
        const tpf = seedTokensPerFrame(m.width, m.height);
        const cap = fpsFrameCap(tpf);
        if (m.n_max !== cap || (m.tokens_per_frame !== null && m.tokens_per_frame !== tpf)) {
          nMaxFormula.fail(r, `${m.width}×${m.height}: tokens_per_frame ${m.tokens_per_frame} (expected ${tpf}), n_max ${m.n_max} (expected ${cap})`);
        } else nMaxFormula.pass();
        if (is16by9(m.width, m.height)) {
          if (m.n_max === N_MAX_16_9) nMax169.pass();
          else nMax169.fail(r, `${m.width}×${m.height} sent, n_max ${m.n_max}`);
        }
      }
      if (LONG_VIDEO_BENCHMARKS.has(r.benchmark)) {
        const k = `${r.benchmark} ${r.condition}`;
        const c = longCounts.get(k) ?? { capped: 0, total: 0 };
        c.total++;
        if (m.capped_ctx) c.capped++;
        longCounts.set(k, c);
        const ts = m.timestamps;
        if (ts && ts.length >= 2) {
          // The frames sent span (almost) the whole video; its grid has about span·F + 1 points.
          const span = ts[ts.length - 1] - ts[0];
          const gridPoints = span * fps + 1;
          if (gridPoints > m.n_max * 1.05 + 2 && !m.capped_ctx)
            longCapped.fail(
              r,
              `frames span ${span.toFixed(0)} s (≈ ${Math.round(gridPoints)} grid points at fps${fps}) but not capped (n_grid ${m.n_grid}, n_max ${m.n_max})`,
            );
          else if (gridPoints < m.n_max * 0.95 && m.capped_ctx)
            longCapped.fail(
              r,
              `frames span only ${span.toFixed(0)} s (≈ ${Math.round(gridPoints)} grid points at fps${fps}) but capped (n_grid ${m.n_grid}, n_max ${m.n_max})`,
            );
          else longCapped.pass();
        }
      }
    }
  }
  const longSummary = [...longCounts.entries()]
    .sort()
    .map(([k, c]) => `${k}: ${c.capped}/${c.total} capped`)
    .join('; ');
  const checks: Check[] = [
    capRule.result(
      'every fps record has capped_ctx == (n_grid > n_max) and n_frames_used == min(n_grid, n_max)',
      'capped_ctx or n_frames_used disagrees with n_grid / n_max',
      'no fps records yet',
    ),
    nMaxFormula.result('n_max and tokens_per_frame follow the seed formula', 'n_max or tokens_per_frame off the seed formula', 'no fps records yet'),
    nMax169.result('n_max = 582 on every 16:9 video', 'a 16:9 video with n_max ≠ 582', 'no 16:9 fps records yet'),
    mvbench.result('MVBench never capped', 'MVBench capped', 'no MVBench fps records yet'),
    longCapped.result(
      `capping matches the videos' lengths (${longSummary})`,
      `capping contradicts the video length (${longSummary})`,
      'no LVBench / TimeScope fps records yet',
    ),
  ];
  return { files: files.length, records, checks, inWindow, lastWriteByRun, problems, problemCount, tokenPrediction: prediction.result() };
}
