// CPU cores (a WORKERS suggestion) and free disk.
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import type { DoctorLine } from '../../../doctor/schema';
import { PackageLayout } from '../package/layout';
import { videosManifestSchema } from '../package/schemas';
import { defaultFreeBytes } from '../prepare/prepare';
import { formatBytes } from '../prepare/progressMeter';
import { parseBoundedJson } from '../../../io/boundedJson';

/**
 * Frame decoding is CPU-bound (seed §2: 16+ cores recommended; the fps ladders decode up to 582
 * frames per video). The seed's default is 6 workers per GPU, "raise it with the core count":
 * keep two cores for the runner and the servers' own threads and share the rest among the GPUs.
 */
export function suggestWorkers(cores: number, ngpu: number): number {
  return Math.max(6, Math.floor((cores - 2) / Math.max(1, ngpu)));
}

export function checkCores(cores: number, ngpu: number): DoctorLine {
  const base = { id: 'cores', title: 'CPU cores' };
  const w = suggestWorkers(cores, ngpu);
  const detail = `${cores} core(s) for ${Math.max(1, ngpu)} GPU(s): suggest WORKERS=${w} per GPU`;
  if (cores < 16)
    return {
      ...base,
      status: 'warn',
      detail: `${detail}; the seed recommends 16+ cores (the fps ladders are decode-bound)`,
      action: `expect frame decoding to limit throughput; WORKERS=${w}`,
    };
  return { ...base, status: 'ok', detail, action: null };
}

/** Headroom beyond the videos: JPEG frame store, logs, raw records. */
export const DISK_HEADROOM = 20e9;

export async function checkDisk(packageDir: string | null, freeBytes: (dir: string) => Promise<number> = defaultFreeBytes): Promise<DoctorLine> {
  const base = { id: 'disk', title: 'free disk' };
  const dir = packageDir ?? process.cwd();
  const free = await freeBytes(dir);
  let need = 0;
  let why = '';
  if (packageDir) {
    const layout = new PackageLayout(packageDir);
    try {
      const m = videosManifestSchema.parse(parseBoundedJson(await fs.readFile(layout.videosManifest, 'utf8')));
      let stored = 0;
      try {
        stored = (await fs.readdir(layout.storeDir)).length;
      } catch {
        /* not extracted */
      }
      if (stored < m.n_videos) {
        need = m.shards.reduce((a, s) => a + s.bytes, 0);
        why = `the videos still to extract (≈ ${formatBytes(need)}, ${stored} of ${m.n_videos} videos present) + `;
      }
    } catch {
      /* no manifest: only the headroom */
    }
  }
  const detail = `${formatBytes(free)} free at ${dir}; needs ${why}${formatBytes(DISK_HEADROOM)} headroom for frames and logs`;
  if (free < need) return { ...base, status: 'fail', detail, action: 'free disk space or move the package before `fpsweep prepare`' };
  if (free < need + DISK_HEADROOM)
    return {
      ...base,
      status: 'warn',
      detail,
      action: 'little room for the frame store and logs: free some space (prepare --delete-shards frees the shards after extraction)',
    };
  return { ...base, status: 'ok', detail, action: null };
}

export function cores(): number {
  return os.availableParallelism();
}
