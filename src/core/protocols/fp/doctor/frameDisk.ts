// Room for the frame store (SPEC §3: the JPEGs the engine writes and serves as file:// URLs), estimated
// from the dry run's plan: every distinct JPEG the todo units need, one per (video, stored frame index, size)
// as frames/store.ts keys them, at an assumed size per pixel.
//
// Bytes per pixel: JPEG at quality 85, 4:2:0, of natural video frames runs about 1.5–2.5 bits a pixel;
// 2 bits (0.25 B) is assumed, or, once the store holds enough JPEGs, their own average. The store
// evicts unpinned files above its cap (frames/options.ts, 20 GiB by default), so the room it needs is
// the smaller of the estimate and the cap.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { DoctorLine } from '../../../doctor/schema';
import { PackageLayout } from '../package/layout';
import { loadVideoFramePlans } from '../plan/framePlans';
import type { WorkPlan } from '../plan/types';
import { GiB } from '../frames/options';
import { formatBytes } from '../prepare/progressMeter';
import { defaultFreeBytes } from '../prepare/prepare';
import { processorCacheItemBytes } from './processorCache';

export const ASSUMED_JPEG_BYTES_PER_PIXEL = 0.25;
export const FRAME_STORE_CAP_BYTES = 20 * GiB;
/** JPEGs in the store before their own average replaces the assumption. */
const CALIBRATE_MIN_FILES = 20;
const CALIBRATE_MAX_FILES = 2000;
const FRAME_FILE = /^\d+_(\d+)x(\d+)\.jpg$/;

export interface FramePlanEstimate {
  /** Distinct JPEGs the todo units need (already stored ones included). */
  jpegs: number;
  pixels: number;
  /** vLLM processor-cache bytes of the distinct images of the costliest videos (largest first, at most 8). */
  largestVideosCacheBytes: number[];
}

const LARGEST_KEPT = 8;

/** Distinct (video, frame, size) JPEGs of the plan's todo units, and their pixels. */
export async function estimatePlanJpegs(plan: WorkPlan): Promise<FramePlanEstimate> {
  const layout = plan.layout;
  let jpegs = 0;
  let pixels = 0;
  const largest: number[] = [];
  for (const video of plan.videos) {
    const fp = await loadVideoFramePlans(layout, video);
    if (fp.kind !== 'ok') continue;
    // One file per (index, size), as frameFileName names them: stored indices per size.
    const bySize = new Map<number, Set<number>>();
    let cacheBytes = 0;
    for (const p of fp.plans.values()) {
      if (p.width === null || p.height === null) continue;
      const sizeKey = p.width * 65536 + p.height;
      let seen = bySize.get(sizeKey);
      if (!seen) bySize.set(sizeKey, (seen = new Set()));
      const before = seen.size;
      for (const i of p.indices) seen.add(i);
      jpegs += seen.size - before;
      pixels += (seen.size - before) * p.width * p.height;
      cacheBytes += (seen.size - before) * processorCacheItemBytes(p.width, p.height);
    }
    if (largest.length < LARGEST_KEPT || cacheBytes > largest[largest.length - 1]) {
      largest.push(cacheBytes);
      largest.sort((a, b) => b - a);
      largest.length = Math.min(largest.length, LARGEST_KEPT);
    }
  }
  return { jpegs, pixels, largestVideosCacheBytes: largest };
}

/** Average bytes per pixel of the JPEGs already in the store (null when it holds too few). */
export async function measuredBytesPerPixel(storeDir: string): Promise<{ bytesPerPixel: number; files: number } | null> {
  let bytes = 0;
  let pixels = 0;
  let files = 0;
  let dirs: string[];
  try {
    dirs = await fs.readdir(storeDir);
  } catch {
    return null;
  }
  outer: for (const d of dirs) {
    let names: string[];
    try {
      names = await fs.readdir(path.join(storeDir, d));
    } catch {
      continue;
    }
    for (const n of names) {
      const m = FRAME_FILE.exec(n);
      if (!m) continue;
      const st = await fs.stat(path.join(storeDir, d, n)).catch(() => null);
      if (!st?.isFile()) continue;
      bytes += st.size;
      pixels += Number(m[1]) * Number(m[2]);
      if (++files >= CALIBRATE_MAX_FILES) break outer;
    }
  }
  return files >= CALIBRATE_MIN_FILES && pixels > 0 ? { bytesPerPixel: bytes / pixels, files } : null;
}

/** `plan`: the dry run's (null when it failed: nothing to estimate from). */
export async function checkFrameStoreDisk(
  packageDir: string,
  plan: WorkPlan | null,
  freeBytes: (dir: string) => Promise<number> = defaultFreeBytes,
  planEstimate?: FramePlanEstimate,
): Promise<DoctorLine> {
  const base = { id: 'frame_store_disk', title: 'disk for the frame store' };
  const layout = new PackageLayout(packageDir);
  if (!plan) return { ...base, status: 'warn', detail: 'cannot estimate: the dry run failed', action: 'see the run package line' };
  const est = planEstimate ?? (await estimatePlanJpegs(plan));
  const measured = await measuredBytesPerPixel(layout.frameStoreDir);
  const bpp = measured?.bytesPerPixel ?? ASSUMED_JPEG_BYTES_PER_PIXEL;
  const estimate = est.pixels * bpp;
  const need = Math.min(estimate, FRAME_STORE_CAP_BYTES);
  const free = await freeBytes(layout.frameStoreDir);
  const how = measured ? `${bpp.toFixed(3)} B/pixel measured on ${measured.files} stored JPEG(s)` : `${bpp} B/pixel assumed (JPEG q85 4:2:0)`;
  const detail =
    `${est.jpegs.toLocaleString('en-US')} distinct JPEG(s) to serve (${(est.pixels / 1e6).toFixed(1)} Mpixel × ${how} ≈ ${formatBytes(estimate)}); ` +
    `the store keeps at most ${formatBytes(FRAME_STORE_CAP_BYTES)} (least recently used evicted), ` +
    `so it needs ${formatBytes(need)}; ${formatBytes(free)} free at ${layout.frameStoreDir}`;
  if (free < need) {
    return {
      ...base,
      status: 'warn',
      detail,
      action: `free ${formatBytes(need - free)} on that filesystem (or move the package): a full disk stops the run when a JPEG cannot be written`,
    };
  }
  return { ...base, status: 'ok', detail, action: null };
}
