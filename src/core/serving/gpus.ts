// Which GPUs to serve on: nvidia-smi's list, cut to NGPU; without nvidia-smi, NGPU GPUs, else one.
// execa 9 is ESM-only: a dynamic import loads it natively under tsx (mocha) and in the esbuild bundle.
import { UsageError } from '../errors';

const loadExeca = () => import('execa').then((m) => m.execa);

export interface GpuChoice {
  gpus: number[];
  /** Set when we had to assume (no nvidia-smi): said once to the user, never silent. */
  warning: string | null;
}

export async function listGpus(): Promise<number[] | null> {
  try {
    const execa = await loadExeca();
    const r = await execa('nvidia-smi', ['--query-gpu=index', '--format=csv,noheader'], { timeout: 15_000, reject: false });
    if (r.exitCode !== 0) return null;
    const ids = String(r.stdout)
      .split('\n')
      .map((s) => s.trim())
      .filter((s) => /^\d+$/.test(s))
      .map(Number);
    return ids.length ? ids : null;
  } catch {
    return null;
  }
}

export async function chooseGpus(ngpu: number | undefined, detect: () => Promise<number[] | null> = listGpus): Promise<GpuChoice> {
  const found = await detect();
  if (found) {
    if (ngpu !== undefined && ngpu > found.length) {
      throw new Error(`NGPU=${ngpu} but nvidia-smi lists ${found.length} GPU(s) (${found.join(', ')}); set NGPU ≤ ${found.length}`);
    }
    return { gpus: ngpu !== undefined ? found.slice(0, ngpu) : found, warning: null };
  }
  if (ngpu !== undefined) return { gpus: Array.from({ length: ngpu }, (_, i) => i), warning: null };
  return { gpus: [0], warning: 'nvidia-smi not found or failed: assuming one GPU (index 0); set NGPU to override' };
}

/** The GPUs a job may use (the cut's lanes, FP's GPU frame helpers): CUDA_VISIBLE_DEVICES when set (its entries as given), else nvidia-smi's indices. */
export function visibleGpus(env: Readonly<Record<string, string | undefined>>, smiIndices: readonly number[]): string[] {
  const cvd = env.CUDA_VISIBLE_DEVICES;
  if (cvd !== undefined) {
    const list = cvd
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    // CUDA's own rule: "-1" (or any invalid id) hides every GPU from the first invalid one on.
    const cut = list.findIndex((s) => s.startsWith('-'));
    return cut === -1 ? list : list.slice(0, cut);
  }
  return smiIndices.map(String);
}

/** `--gpus "0,1;2,3"`: GPU groups, one server each (a group's size is its tensor parallelism). */
export function parseGpuGroups(raw: string, flag: string): number[][] {
  const groups = raw.split(';').map((g) =>
    g
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  if (!groups.length || groups.some((g) => !g.length || g.some((s) => !/^\d+$/.test(s)))) {
    throw new UsageError(`${flag} '${raw}': expected GPU indices split by ',' and groups split by ';', e.g. "0,1,2,3;4,5,6,7"`);
  }
  const all = groups.flat();
  if (new Set(all).size !== all.length) throw new UsageError(`${flag} '${raw}': a GPU appears twice`);
  return groups.map((g) => g.map(Number));
}
