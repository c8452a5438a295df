// A small package with the returns' inputs plus files that must stay out of the tarball.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { tempDir } from './tmpDirs';

export const INCLUDED_FILES = [
  'results/conditions_results.csv',
  'results/p1_raw/v_1/MVBench__DIAG_V.jsonl',
  'results/p1_raw/v_fps1_s224/LVBench__DIAG_V.jsonl',
  'logs/launch_params.txt',
  'logs/vllm_gpu0.log',
  'data/logs/p1_timing.jsonl',
  'data/logs/failures.jsonl',
];
export const EXCLUDED_FILES = [
  'items/samples/MVBench.jsonl',
  'results/conditions_results.csv.torn',
  'results/other.csv',
  '.fpsweep/status.json',
  'videos/videos_manifest.json',
  'data/store/normalized/abc/meta.json',
];

/** `bigRandomBytes` of incompressible data go into one raw file (to force a multipart upload). */
export async function makeReturnsPackage(bigRandomBytes = 0): Promise<string> {
  const dir = await tempDir('fp-returns-');
  for (const rel of [...INCLUDED_FILES, ...EXCLUDED_FILES]) {
    await fs.mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await fs.writeFile(path.join(dir, rel), `content of ${rel}\n`);
  }
  if (bigRandomBytes > 0) {
    await fs.writeFile(path.join(dir, 'results/p1_raw/v_fps1_s224/LVBench__DIAG_V.jsonl'), randomBytes(bigRandomBytes));
  }
  return dir;
}

/** Every file under dir, recursively (relative paths). */
export async function listFiles(dir: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await listFiles(dir, r)));
    else out.push(r);
  }
  return out;
}
