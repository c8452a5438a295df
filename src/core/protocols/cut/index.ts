// Cutting complete videos into captionable clips as a run type (issue 27, SPEC-AVTIME-DATA §2): a run root is an
// output root (a folder holding .fpsweep-cut/); its engine state is per rank under .fpsweep-cut/ (layout.ts); its
// worker job is job.ts's; status sums every rank read-only (progress.ts). Its published directories are a videos root
// for captioning.
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { RunProtocol } from '../types';
import { cutDoctorLines } from './doctor';
import { cutJobSchema, type CutJob } from './jobSchema';
import { cutRunRoot, CUT_STATE_DIR, listCutRanks } from './layout';
import { cutSnapshot, readCutView } from './progress';
import type { CutProgressDetail } from './progressTypes';
import { cutStatusView, cutStopWords } from './statusView';

const isCutRoot = (dir: string) => existsSync(path.join(dir, CUT_STATE_DIR));

export const cutProtocol: RunProtocol<CutJob, CutProgressDetail, CutProgressDetail> = {
  id: 'cut',
  title: 'Cuts',
  async findRoots(dir) {
    const own = path.resolve(dir);
    if (isCutRoot(own)) return [own];
    const entries = await fs.readdir(own, { withFileTypes: true }).catch(() => []);
    return entries
      .filter((e) => e.isDirectory() && !e.name.startsWith('.') && isCutRoot(path.join(own, e.name)))
      .map((e) => path.join(own, e.name))
      .sort();
  },
  recognises: async (dir) => isCutRoot(path.resolve(dir)),
  // The unsharded run's state; a rank's is cutRunRoot(root, {index, count}) (its worker, its stop).
  runRoot: (root) => cutRunRoot(root),
  // Every rank's state (stop asks each), else the unsharded one.
  async runRoots(root) {
    const ranks = await listCutRanks(root);
    return ranks.length ? ranks.map((r) => r.runRoot) : [cutRunRoot(root)];
  },
  readProgress: async (root) => cutSnapshot(await readCutView(root)),
  job: { schema: cutJobSchema },
  report: async (root) => (await readCutView(root)).detail,
  statusView: async (root) => cutStatusView(await readCutView(root)),
  describeStop: cutStopWords,
  doctor: cutDoctorLines,
};
