// The builtin cutter's boundary fusion (the seed's AVCut §2 with two of its three signals): scene candidates are
// filtered by the threshold, clustered within the min gap (the strongest kept), moved out of speech to a pause anchor
// (a silence's midpoint) within the shift window, then kept strongest first while they respect the min gap and the
// min segment; any segment still longer than the soft threshold is split by soft boundaries, at a pause anchor inside
// the admissible window when there is one, else at the even split. Pure; all arithmetic on whole milliseconds, so
// the timeline is exact and its JSON stable.
import type { BuiltinCutConfig } from './config';

/** A scene change ffmpeg saw: the first frame of the new shot (s) and its score on PySceneDetect's scale (0–255). */
export interface SceneCandidate {
  t: number;
  score: number;
}
/** A silence (s). */
export interface Pause {
  start: number;
  end: number;
}
export interface FuseInput {
  durationSec: number;
  scenes: readonly SceneCandidate[];
  pauses: readonly Pause[];
}
export type FuseRules = Pick<BuiltinCutConfig, 'sceneThreshold' | 'minBoundaryGapS' | 'minSegmentS' | 'softThresholdS' | 'pauseShiftWindowS'>;

export interface Boundary {
  source: 'start' | 'scene' | 'soft';
  /** Scene boundaries: the scdet score as a fraction of a full-scale change (score / 255), 3 decimals. */
  confidence?: number;
  /** Scene boundaries moved to a pause anchor (true), or left where the shot changes (false). */
  shiftedToPause?: boolean;
  /** Scene boundaries: where the shot changes (s), before any shift. */
  sceneSec?: number;
  /** Soft boundaries: at a pause anchor (true) or at the even split (false). */
  atPause?: boolean;
}
export interface FusedSegment {
  startSec: number;
  endSec: number;
  boundary: Boundary;
}
/** What happened to the candidates: segments.json's `candidates`. */
export interface FuseCounts {
  scene: number;
  below_threshold: number;
  outside_video: number;
  clustered: number;
  shifted: number;
  dropped_by_spacing: number;
  scene_kept: number;
  pauses: number;
  pause_anchors: number;
  soft: number;
  soft_at_pause: number;
}
export interface FuseResult {
  segments: FusedSegment[];
  counts: FuseCounts;
}

// Times and the config's lengths are taken to the nearest millisecond: the timeline is whole ms (stable JSON).
const ms = (s: number) => Math.round(s * 1000);
const sec = (m: number) => m / 1000;

interface Candidate {
  t: number;
  score: number;
  sceneT: number;
  shifted: boolean;
}

/** Candidates in time order (score descending, then input order, at one time), each cluster's strongest. */
function clusterStrongest(cands: Candidate[], gapMs: number): Candidate[] {
  const sorted = [...cands].sort((a, b) => a.t - b.t || b.score - a.score);
  const kept: Candidate[] = [];
  let first: Candidate | null = null;
  let best: Candidate | null = null;
  for (const c of sorted) {
    // A cluster spans gapMs from its first candidate: a long run of flicker yields one boundary per gap, not one in all.
    if (first && c.t - first.t < gapMs) {
      if (c.score > best!.score) best = c;
      continue;
    }
    if (best) kept.push(best);
    first = best = c;
  }
  if (best) kept.push(best);
  return kept;
}

/** The nearest anchor to t within window (the earlier on a tie), or null. `anchors` ascending. */
function nearestAnchor(anchors: readonly number[], t: number, windowMs: number): number | null {
  let pick: number | null = null;
  for (const a of anchors) {
    const d = Math.abs(a - t);
    if (d <= windowMs && (pick === null || d < Math.abs(pick - t))) pick = a;
  }
  return pick;
}

/** Soft boundaries inside (c, e): pieces of at most softMs and at least sepMs, at anchors when the window holds one. */
export function softSplit(c0: number, e: number, anchors: readonly number[], sepMs: number, softMs: number): { t: number; atPause: boolean }[] {
  const out: { t: number; atPause: boolean }[] = [];
  let c = c0;
  while (e - c > softMs) {
    const lo = c + sepMs;
    const hi = Math.min(c + softMs, e - sepMs);
    const k = Math.ceil((e - c) / softMs);
    const even = c + Math.floor((e - c) / k);
    let pick: number | null = null;
    for (const a of anchors) if (a >= lo && a <= hi && (pick === null || Math.abs(a - even) < Math.abs(pick - even))) pick = a;
    const t = pick ?? even;
    out.push({ t, atPause: pick !== null });
    c = t;
  }
  return out;
}

/** The admissible window of a soft boundary after `c` before the next hard boundary `e` (ms): what softSplit searches. */
export function softWindow(c: number, e: number, sepMs: number, softMs: number): [number, number] {
  return [c + sepMs, Math.min(c + softMs, e - sepMs)];
}

/** A config's lengths in whole ms: segments ≥ minSegMs, boundaries ≥ sepMs apart, soft pieces ≤ softMs, the shift window. */
export function spacingOf(rules: FuseRules): { minSegMs: number; sepMs: number; softMs: number; windowMs: number } {
  const minSegMs = ms(rules.minSegmentS);
  return { minSegMs, sepMs: Math.max(minSegMs, ms(rules.minBoundaryGapS)), softMs: ms(rules.softThresholdS), windowMs: ms(rules.pauseShiftWindowS) };
}

/** Pause anchors (ms, ascending, distinct): midpoints of the silences strictly inside (0, D). */
export function pauseAnchors(pauses: readonly Pause[], durationMs: number): number[] {
  const mids = pauses
    .map((p) => [Math.max(0, ms(p.start)), Math.min(durationMs, ms(p.end))])
    .filter(([s, e]) => e > s)
    .map(([s, e]) => Math.round((s + e) / 2))
    .filter((m) => m > 0 && m < durationMs);
  return [...new Set(mids)].sort((a, b) => a - b);
}

export function fuseBoundaries(input: FuseInput, rules: FuseRules): FuseResult {
  const D = ms(input.durationSec);
  if (!(D > 0)) throw new Error(`fuseBoundaries: the duration must be positive, not ${input.durationSec}`);
  const { minSegMs, sepMs, softMs, windowMs } = spacingOf(rules);
  if (softMs < 2 * sepMs) throw new Error(`fuseBoundaries: the soft threshold ${rules.softThresholdS} s is under twice the spacing ${sepMs / 1000} s`);
  const pausesMs = input.pauses.map((p) => [ms(p.start), ms(p.end)] as const);
  const anchors = pauseAnchors(input.pauses, D);
  const counts: FuseCounts = {
    scene: input.scenes.length,
    below_threshold: 0,
    outside_video: 0,
    clustered: 0,
    shifted: 0,
    dropped_by_spacing: 0,
    scene_kept: 0,
    pauses: input.pauses.length,
    pause_anchors: anchors.length,
    soft: 0,
    soft_at_pause: 0,
  };

  const above: Candidate[] = [];
  for (const s of input.scenes) {
    const t = ms(s.t);
    if (!(s.score >= rules.sceneThreshold)) counts.below_threshold++;
    else if (!(t > 0 && t < D)) counts.outside_video++;
    else above.push({ t, score: s.score, sceneT: t, shifted: false });
  }
  const clusters = clusterStrongest(above, ms(rules.minBoundaryGapS));
  counts.clustered = above.length - clusters.length;

  // Out of speech: a boundary already inside a silence stays on the shot change; else it moves to a near anchor.
  const shifted = clusters.map((c) => {
    if (pausesMs.some(([s, e]) => s <= c.t && c.t <= e)) return c;
    const a = nearestAnchor(anchors, c.t, windowMs);
    return a === null || a === c.t ? c : { ...c, t: a, shifted: true };
  });
  counts.shifted = shifted.filter((c) => c.shifted).length;

  // Strongest first (then earliest): a boundary is kept when both its segments can still hold the minimums.
  const kept: Candidate[] = [];
  for (const c of [...shifted].sort((a, b) => b.score - a.score || a.t - b.t || a.sceneT - b.sceneT)) {
    const ok = c.t >= minSegMs && D - c.t >= minSegMs && kept.every((k) => Math.abs(k.t - c.t) >= sepMs);
    if (ok) kept.push(c);
    else counts.dropped_by_spacing++;
  }
  kept.sort((a, b) => a.t - b.t);
  counts.scene_kept = kept.length;

  const segments: FusedSegment[] = [];
  const hard: { t: number; boundary: Boundary }[] = [
    { t: 0, boundary: { source: 'start' } },
    ...kept.map((k) => ({
      t: k.t,
      boundary: { source: 'scene' as const, confidence: Math.round((k.score / 255) * 1000) / 1000, shiftedToPause: k.shifted, sceneSec: sec(k.sceneT) },
    })),
  ];
  hard.forEach((h, i) => {
    const e = i + 1 < hard.length ? hard[i + 1].t : D;
    const soft = softSplit(h.t, e, anchors, sepMs, softMs);
    const starts = [{ t: h.t, boundary: h.boundary }, ...soft.map((s) => ({ t: s.t, boundary: { source: 'soft' as const, atPause: s.atPause } }))];
    starts.forEach((s, j) => segments.push({ startSec: sec(s.t), endSec: sec(j + 1 < starts.length ? starts[j + 1].t : e), boundary: s.boundary }));
    counts.soft += soft.length;
    counts.soft_at_pause += soft.filter((s) => s.atPause).length;
  });
  return { segments, counts };
}
