// Segmented captioning as a run type (issue 25, SPEC-AVTIME-DATA §3): a run root is a videos root (a folder whose
// direct children hold segments.json, or one that holds .fpsweep-caption/); its engine state is per rank under
// .fpsweep-caption/ (layout.ts); its worker job is job.ts's; status sums every rank read-only (progress.ts).
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { RunProtocol } from '../types';
import { captionDoctorLines } from './doctor';
import { captionJobSchema, type CaptionJob } from './jobSchema';
import { CAPTION_STATE_DIR, captionRunRoot, listRankRoots, SEGMENTS_FILE } from './layout';
import { captionSnapshot, readCaptionView } from './progress';
import type { CaptionProgressDetail } from './progressTypes';
import { captionStatusView, captionStopWords } from './statusView';

/** A videos root: it holds our state, or one of its direct children holds a segments.json (the first found ends the look). */
export async function isVideosRoot(dir: string): Promise<boolean> {
  if (existsSync(path.join(dir, CAPTION_STATE_DIR))) return true;
  const dh = await fs.opendir(dir).catch(() => null);
  if (!dh) return false;
  try {
    for await (const e of dh) if (e.isDirectory() && existsSync(path.join(dir, e.name, SEGMENTS_FILE))) return true;
  } finally {
    await dh.close().catch(() => undefined);
  }
  return false;
}

export const captionProtocol: RunProtocol<CaptionJob, CaptionProgressDetail, CaptionProgressDetail> = {
  id: 'caption',
  title: 'Captions',
  async findRoots(dir) {
    const own = path.resolve(dir);
    if (await isVideosRoot(own)) return [own];
    const entries = await fs.readdir(own, { withFileTypes: true }).catch(() => []);
    const dirs = entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => path.join(own, e.name));
    const found = await Promise.all(dirs.map(async (d) => ((await isVideosRoot(d)) ? d : null)));
    return found.filter((d): d is string => d !== null).sort();
  },
  recognises: isVideosRoot,
  // The unsharded run's state; a rank's is captionRunRoot(root, {index, count}) (its worker, its stop).
  runRoot: (root) => captionRunRoot(root),
  // Every rank's state (stop asks each), else the unsharded one.
  async runRoots(root) {
    const ranks = await listRankRoots(root);
    return ranks.length ? ranks.map((r) => r.runRoot) : [captionRunRoot(root)];
  },
  readProgress: async (root) => captionSnapshot(await readCaptionView(root)),
  job: { schema: captionJobSchema },
  report: async (root) => (await readCaptionView(root)).detail,
  statusView: async (root) => captionStatusView(await readCaptionView(root)),
  describeStop: captionStopWords,
  doctor: captionDoctorLines,
};
