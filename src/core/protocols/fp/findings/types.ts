// The findings (`fpsweep findings --json`, `findings.json` in the returns, the report's findings and the
// findings webview): per benchmark, accuracy per condition with a Wilson 95 % interval, four paired
// contrasts and the verdict to the sweep's question (pixels, frames, both or neither). Defined once here;
// everything that shows findings renders exactly this and computes nothing itself.
//
// Units: accuracies, Δ, interval bounds, δ and MDE are accuracy points (0–100); p and q are probabilities.
// The fields the issue names (delta_pts, alpha, benchmarks[].{benchmark, chance, cells, contrasts, verdict,
// why}, cells.{n, k, acc, lo, hi}, contrasts.{n, b, c, delta, lo, hi, p, q, mde}) are the contract; the
// optional fields after them are extras for the drill-down and the ladder flags.
import { z } from 'zod';

/** The four paired contrasts: [name, first condition, second condition]; Δ = first − second. */
export const CONTRASTS = [
  ['pixels', 'v_32_s448', 'v_32_s168'],
  ['frames', 'v_128_s224', 'v_8_s224'],
  ['video', 'v_32', 'v_blind'],
  ['temporal', 'v_32', 'v_1'],
] as const;
export type ContrastName = (typeof CONTRASTS)[number][0];
export const CONTRAST_NAMES: readonly ContrastName[] = CONTRASTS.map((c) => c[0]);
/** The contrasts that answer the sweep's question; BH q is taken over every benchmark × these. */
export const TESTED_CONTRASTS: readonly ContrastName[] = ['pixels', 'frames'];

export const VERDICTS = ['blind-solvable', 'pixels', 'frames', 'both', 'neither', 'hurts', 'inconclusive', 'pending'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Pairs below this leave a contrast (and so the verdict) `pending`. */
export const MIN_PAIRS = 100;
/**
 * Videos a contrast needs before its cluster-robust interval may show equivalence (TOST → `neither`): with one
 * video the SE is 0 by construction, and with a handful it is far too small (cluster-robust SEs are known to be
 * anti-conservative with few clusters), so a narrow interval from few videos is not evidence of no effect.
 */
export const MIN_TOST_CLUSTERS = 10;
export const DEFAULT_DELTA_PTS = 3;
export const ALPHA = 0.05;

/** One benchmark × condition: answered rows (`ok`) only; NA and reuse rows are counted apart, never as answers. */
export const cellSchema = z.object({
  /** `ok` rows. */
  n: z.number().int().nonnegative(),
  /** `ok` rows with correct = 1. */
  k: z.number().int().nonnegative(),
  /** 100·k/n, or null when n = 0. */
  acc: z.number().nullable(),
  /** Wilson 95 % interval, points; null when n = 0. */
  lo: z.number().nullable(),
  hi: z.number().nullable(),
  /** Extras: rows with status NA and reuse (shown as such, not in n). */
  na: z.number().int().nonnegative().optional(),
  reuse: z.number().int().nonnegative().optional(),
});
export type Cell = z.infer<typeof cellSchema>;

/** One paired contrast on the items with both conditions `ok`. */
export const contrastSchema = z.object({
  /** Pairs (items with both conditions ok). */
  n: z.number().int().nonnegative(),
  /** First condition right, second wrong. */
  b: z.number().int().nonnegative(),
  /** First wrong, second right. */
  c: z.number().int().nonnegative(),
  /** Δ = 100·(b − c)/n, points; null when n = 0. */
  delta: z.number().nullable(),
  /** 95 % interval of Δ from the cluster-robust SE (videos as clusters), points; null when n = 0. */
  lo: z.number().nullable(),
  hi: z.number().nullable(),
  /** McNemar's exact two-sided p (binomial on b + c discordant pairs); 1 when b + c = 0; null when n = 0. */
  p: z.number().nullable(),
  /** Benjamini–Hochberg q over every benchmark × {pixels, frames} with n > 0; null for video and temporal. */
  q: z.number().nullable(),
  /** Minimum detectable |Δ| at 80 % power, two-sided α = 0.05, from the cluster-robust SE; points; null when n < 2. */
  mde: z.number().nullable(),
  /** Extras: the 90 % interval (the TOST check against ±δ), and the number of video clusters. */
  lo90: z.number().nullable().optional(),
  hi90: z.number().nullable().optional(),
  clusters: z.number().int().nonnegative().optional(),
});
export type Contrast = z.infer<typeof contrastSchema>;

/** A ladder step that cannot differ from its neighbour for some items (extra; for the webview's warnings). */
export const ladderFlagSchema = z.object({
  condition: z.string(),
  /** The condition it cannot differ from. */
  same_as: z.string(),
  /** `reused`: rows copied (status reuse); `capped`: the frames sent were capped (fewer than asked, or the context cap). */
  kind: z.enum(['reused', 'capped']),
  /** Items affected. */
  items: z.number().int().nonnegative(),
  message: z.string(),
});
export type LadderFlag = z.infer<typeof ladderFlagSchema>;

/** One condition's row of an item, as the drill-down shows it. */
export const itemAnswerSchema = z.object({
  status: z.string(),
  pred: z.string(),
  correct: z.boolean().nullable(),
});

/** An item whose correctness differs between a contrast's two conditions (extra; the drill-down). */
export const flipSchema = z.object({
  item_id: z.string(),
  video_id: z.string().nullable(),
  /** The contrast; `first_right` is true for a b-pair (first condition right, second wrong). */
  contrast: z.enum(CONTRAST_NAMES as [ContrastName, ...ContrastName[]]),
  first_right: z.boolean(),
  answer: z.string(),
  /** Every condition's row of the item. */
  answers: z.record(z.string(), itemAnswerSchema),
});
export type Flip = z.infer<typeof flipSchema>;

export const benchmarkFindingsSchema = z.object({
  benchmark: z.string(),
  /** Mean of 1/options over the benchmark's items, points; null without items. */
  chance: z.number().nullable(),
  cells: z.record(z.string(), cellSchema),
  contrasts: z.object({ pixels: contrastSchema, frames: contrastSchema, video: contrastSchema, temporal: contrastSchema }),
  verdict: z.enum(VERDICTS),
  /** One sentence, with the numbers that decided (and the detectable effect when inconclusive). */
  why: z.string(),
  /** Extras. */
  items: z.number().int().nonnegative().optional(),
  flags: z.array(ladderFlagSchema).optional(),
  flips: z.array(flipSchema).optional(),
});
export type BenchmarkFindings = z.infer<typeof benchmarkFindingsSchema>;

export const findingsSchema = z.object({
  delta_pts: z.number(),
  alpha: z.number(),
  benchmarks: z.array(benchmarkFindingsSchema),
  /** Extras: how the numbers were made (formulas in words) and what was read. */
  method: z.string().optional(),
  rows_read: z.number().int().nonnegative().optional(),
});
export type Findings = z.infer<typeof findingsSchema>;
