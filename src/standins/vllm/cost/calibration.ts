/**
 * The measured costs the stand-in's cost model is built on (pure data and pure functions; simulated seconds).
 *
 * Exports:
 *  - H200_PREFILL, H200_IMAGE_PROCESSOR: ../shared/data/h200_request_cost.json, copied in (CI has no ../shared);
 *  - PREFILL_FIT: GPU seconds of one prefill on the H200 (transformers 5.17, sdpa), fitted from H200_PREFILL;
 *    prefillSeconds(work) evaluates it for new tokens, cached context and newly encoded frames;
 *  - B200_VLLM_SCALE: the named estimate that turns those seconds into a B200 running vLLM's kernels;
 *  - jpegDecodeMs, fastProcessorMs, hashMs, PER_ITEM_MS, REQUEST_MS: the API server's CPU per image / request.
 *
 *  - processorMs(pixels, threads): fastProcessorMs sped up by the API process's torch threads (processorThreads.ts).
 *
 * Provenance: measured 2026-12-03 on an H200 host (16-core Xeon) with a Qwen3-VL-8B-shaped model (8.77e9
 * parameters, random bf16 weights), transformers 5.17 with sdpa attention, torch 2.11, one request alone;
 * the script that measured it lives outside this repository (issue 17).
 */

import { processorSpeedup } from './processorThreads';

export interface PrefillShape {
  cond: string;
  frames: number;
  w: number;
  h: number;
  promptTokens: number;
  visionPatches: number;
  /** Seconds of the whole prefill (vision encoder + LLM), one request alone. */
  prefillS: number;
}

// [cond, frames, w, h, prompt_tokens, vision_patches, prefill_s] from h200_request_cost.json "prefill".
const PREFILL_ROWS: Array<[string, number, number, number, number, number, number]> = [
  ['v_blind', 0, 0, 0, 160, 0, 0.0382],
  ['v_1', 1, 1280, 720, 1042, 3520, 0.0632],
  ['v_8_s224', 8, 398, 224, 848, 2688, 0.0944],
  ['v_32_s168', 32, 299, 168, 1664, 5760, 0.1369],
  ['v_32_s224', 32, 398, 224, 2912, 10752, 0.2046],
  ['v_32_s336', 32, 597, 336, 6304, 24320, 0.3444],
  ['v_32_s448', 32, 796, 448, 11424, 44800, 0.6173],
  ['v_32', 32, 1280, 720, 28384, 112640, 1.8062],
  ['v_128_s224', 128, 398, 224, 11168, 43008, 0.709],
  ['fps_256', 256, 398, 224, 22176, 86016, 1.5635],
  ['fps_cap_582', 582, 398, 224, 50212, 195552, 4.3565],
];
export const H200_PREFILL: readonly PrefillShape[] = PREFILL_ROWS.map(([cond, frames, w, h, promptTokens, visionPatches, prefillS]) => ({
  cond,
  frames,
  w,
  h,
  promptTokens,
  visionPatches,
  prefillS,
}));

/** PIL JPEG decode and transformers' Qwen2VLImageProcessor(Fast) on one CPU thread, ms per image (same file). */
export const H200_IMAGE_PROCESSOR = [
  { w: 398, h: 224, jpegDecodeMs: 1.952, fastMs: 4.728, slowMs: 6.654 },
  { w: 1280, h: 720, jpegDecodeMs: 17.469, fastMs: 53.552, slowMs: 58.401 },
] as const;

/** What one prefill (or one chunk of it) computes. */
export interface PrefillWork {
  /** Prompt tokens computed now (not served by the prefix cache). */
  newTokens: number;
  /** Tokens already in the KV cache before these (prefix-cache hits, earlier chunks). */
  contextTokens: number;
  /** Images whose vision encoder runs for this request (their tokens are among the new ones). */
  newFrames: number;
}

/**
 * The fitted form, one forward pass of one request alone:
 *   s = c0 + cTok·N + cPair·(N·H + N²/2) + cFrame·F + cLogFrame·ln(1+F)
 * N new tokens, H cached tokens before them (so N·H + N²/2 is the causal attention's query-key pairs; T²/2
 * for a request alone), F newly encoded frames. cTok ≈ 2·8.8e9 FLOP per token at the H200's bf16 rate
 * (the vision encoder's per-patch FLOPs ride in it: every 4 patches are one token). The per-frame terms
 * are the vision tower's per-image work (position embeddings, per-image attention, kernel launches),
 * which grows less than linearly at small counts. A separate per-patch coefficient is not identifiable
 * from this table (tokens ≈ patches/4 + text), so it is not fitted.
 */
export interface PrefillFit {
  c0: number;
  cTok: number;
  cPair: number;
  cFrame: number;
  cLogFrame: number;
}

function features(w: PrefillWork): number[] {
  const n = w.newTokens;
  return [1, n, n * w.contextTokens + (n * n) / 2, w.newFrames, Math.log1p(w.newFrames)];
}

function shapeWork(s: PrefillShape): PrefillWork {
  return { newTokens: s.promptTokens, contextTokens: 0, newFrames: s.frames };
}

/** Gauss-Jordan with partial pivoting; A is small (5×5) and well-conditioned once the columns are scaled. */
function solve(a: number[][], b: number[]): number[] {
  const n = a.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let i = 0; i < n; i++) {
    let p = i;
    for (let k = i + 1; k < n; k++) if (Math.abs(m[k][i]) > Math.abs(m[p][i])) p = k;
    [m[i], m[p]] = [m[p], m[i]];
    for (let k = 0; k < n; k++) {
      if (k === i) continue;
      const f = m[k][i] / m[i][i];
      for (let j = i; j <= n; j++) m[k][j] -= f * m[i][j];
    }
  }
  return m.map((row, i) => row[n] / row[i]);
}

/**
 * Least squares on relative error (rows weighted 1/y), then re-weighted 30 times towards the rows with the
 * largest relative error (iteratively reweighted least squares aiming at the smallest worst-case error).
 * Columns are scaled to unit size first so the normal equations stay well-conditioned.
 */
export function fitPrefill(shapes: readonly PrefillShape[]): PrefillFit {
  const x = shapes.map((s) => features(shapeWork(s)));
  const y = shapes.map((s) => s.prefillS);
  const k = x[0].length;
  const scale = Array.from({ length: k }, (_, j) => Math.max(...x.map((r) => Math.abs(r[j]))) || 1);
  const xs = x.map((r) => r.map((v, j) => v / scale[j]));
  let w = y.map((v) => 1 / v);
  let c: number[] = [];
  for (let it = 0; it < 30; it++) {
    const ata = Array.from({ length: k }, () => new Array<number>(k).fill(0));
    const atb = new Array<number>(k).fill(0);
    xs.forEach((r, i) => {
      const ww = w[i] * w[i];
      for (let p = 0; p < k; p++) {
        atb[p] += ww * r[p] * y[i];
        for (let q = 0; q < k; q++) ata[p][q] += ww * r[p] * r[q];
      }
    });
    c = solve(ata, atb);
    const err = xs.map((r, i) => Math.abs(r.reduce((s, v, j) => s + v * c[j], 0) / y[i] - 1));
    w = w.map((wi, i) => wi * (1 + 5 * err[i]));
  }
  const [c0, cTok, cPair, cFrame, cLogFrame] = c.map((v, j) => v / scale[j]);
  return { c0, cTok, cPair, cFrame, cLogFrame };
}

/** The fit of the H200 table, computed once at load (pure and deterministic). */
export const PREFILL_FIT: PrefillFit = fitPrefill(H200_PREFILL);

/** H200 (transformers, sdpa) seconds of one forward pass doing `work`, the per-pass constant included. */
export function prefillSeconds(work: PrefillWork, fit: PrefillFit = PREFILL_FIT): number {
  const f = features(work);
  return fit.c0 * f[0] + fit.cTok * f[1] + fit.cPair * f[2] + fit.cFrame * f[3] + fit.cLogFrame * f[4];
}

/** `prefillSeconds` without the per-pass constant: what one request adds to a batched step. */
export function prefillWorkSeconds(work: PrefillWork, fit: PrefillFit = PREFILL_FIT): number {
  return prefillSeconds(work, fit) - fit.c0;
}

/**
 * The part of the fit's constant that every forward pass pays, however small: streaming the weights once
 * (8.77e9 parameters × 2 bytes / 4.8 TB/s of H200 HBM ≈ 3.65 ms). The rest of `c0` (transformers' per-call
 * overhead) is charged once per request, so a prompt split into chunks pays this much more per extra chunk.
 */
export const STEP_FLOOR_H200_S = (8.77e9 * 2) / 4.8e12;

/** The per-frame (vision tower) part of the fit for `frames` newly encoded images. */
export function visionSeconds(frames: number, fit: PrefillFit = PREFILL_FIT): number {
  return fit.cFrame * frames + fit.cLogFrame * Math.log1p(frames);
}

/**
 * B200 running vLLM 0.11's kernels, in seconds per H200-transformers second. An ESTIMATE, not a measurement:
 * prefill is compute-bound, and a B200's dense bf16 rate is ~2.25 PFLOP/s against the H200's ~0.99 (≈2.3×;
 * HBM 8 vs 4.8 TB/s, 1.7×), so ≈ 0.45 from the chip; vLLM's fused kernels (FlashAttention varlen for the
 * vision tower, fused RMSNorm/rotary/SiLU, no Python per-layer overhead) are taken as ≈ 1.5× over
 * transformers' sdpa path, giving 0.45 / 1.5 ≈ 0.3. With it, the capped fps request (4.36 s measured) is
 * ≈ 1.3 s, inside issue 17's "roughly 1–1.5 s of B200 prefill". Re-measure on the first real pilot.
 */
export const B200_VLLM_SCALE = 0.3;

// --- The API server's CPU (one thread, transformers' fast processor as vLLM 0.11 selects for Qwen3-VL) ---

/** A power law through the two measured sizes: exact at both, positive and monotone between and beyond. */
function powerLaw(px0: number, ms0: number, px1: number, ms1: number): (pixels: number) => number {
  const k = Math.log(ms1 / ms0) / Math.log(px1 / px0);
  return (pixels) => ms0 * Math.pow(pixels / px0, k);
}

const [small, large] = H200_IMAGE_PROCESSOR;
const smallPx = small.w * small.h;
const largePx = large.w * large.h;

/**
 * PIL's JPEG decode, ms for an image of `pixels` (interpolated per pixel between the two measured sizes; the
 * file notes its JPEGs were random noise at q85, slower to decode than real frames: an upper bound).
 */
export const jpegDecodeMs = powerLaw(smallPx, small.jpegDecodeMs, largePx, large.jpegDecodeMs);

/**
 * transformers' fast Qwen2-VL image processor (torchvision), one torch thread, ms for an image of `pixels`:
 * interpolated per pixel between 398×224 (4.73 ms) and 1280×720 (53.6 ms); not measured at 299×168,
 * 597×336 or 796×448 (the exponent is 1.04, so per-pixel interpolation is near-linear there).
 */
export const fastProcessorMs = powerLaw(smallPx, small.fastMs, largePx, large.fastMs);

/**
 * The fast processor with `threads` torch threads in the API process (OMP_NUM_THREADS; processorThreads.ts has
 * the measured ratio, under 4 servers sharing the host): ms per image. threads = 1 is fastProcessorMs.
 */
export function processorMs(pixels: number, threads = 1): number {
  return threads === 1 ? fastProcessorMs(pixels) : fastProcessorMs(pixels) / processorSpeedup(threads, pixels);
}

/**
 * Hashing one decoded image (vllm/multimodal/hasher.py: the PIL image as a numpy array, its bytes fed to
 * blake3), ms per RGB byte. ESTIMATE: ~1.25 GB/s for the copy plus blake3 on one thread (0.21 ms for
 * 398×224); not measured.
 */
export const HASH_MS_PER_BYTE = 0.8e-6;
export function hashMs(pixels: number): number {
  return pixels * 3 * HASH_MS_PER_BYTE;
}

/**
 * Per image item on the API thread even when it hits the processor cache: the cache look-up, the prompt
 * update that expands its placeholder, building its kwargs item. ESTIMATE (not measured): 0.05 ms.
 */
export const PER_ITEM_MS = 0.05;

/** Per request on the API thread: the chat template, tokenizing the text, building the engine request. ESTIMATE: 2 ms. */
export const REQUEST_MS = 2;
