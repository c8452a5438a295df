// GPUs from `nvidia-smi --query-gpu=name,memory.total --format=csv,noheader` (memory in MiB).
import type { DoctorLine } from './schema';
import { probe } from '../runner/probe';

export interface Gpu {
  name: string;
  memoryMiB: number;
}

export function parseNvidiaSmi(csv: string): Gpu[] {
  const gpus: Gpu[] = [];
  for (const line of csv.split('\n')) {
    if (!line.trim()) continue;
    const cut = line.lastIndexOf(',');
    const name = line.slice(0, cut).trim();
    const mem = line
      .slice(cut + 1)
      .trim()
      .match(/^(\d+(?:\.\d+)?)\s*MiB$/i);
    if (cut > 0 && mem) gpus.push({ name, memoryMiB: Number(mem[1]) });
  }
  return gpus;
}

export async function checkGpus(env: NodeJS.ProcessEnv): Promise<{ line: DoctorLine; gpus: Gpu[] }> {
  const r = await probe('nvidia-smi', ['--query-gpu=name,memory.total', '--format=csv,noheader'], env);
  const base = { id: 'gpus', title: 'GPUs' };
  if (!r.ok) {
    return {
      gpus: [],
      line: {
        ...base,
        status: 'fail',
        detail: r.missing ? 'nvidia-smi not found: no NVIDIA GPU visible' : r.message,
        action: 'run on the GPU host (with the NVIDIA driver installed), or use --endpoints with servers running elsewhere',
      },
    };
  }
  const gpus = parseNvidiaSmi(r.stdout);
  if (!gpus.length)
    return {
      gpus,
      line: {
        ...base,
        status: 'fail',
        detail: `nvidia-smi listed no GPU (${r.stdout.trim() || 'empty output'})`,
        action: 'check the driver with `nvidia-smi`',
      },
    };
  const groups = new Map<string, number>();
  for (const g of gpus) groups.set(`${g.name}, ${g.memoryMiB} MiB`, (groups.get(`${g.name}, ${g.memoryMiB} MiB`) ?? 0) + 1);
  const detail = `${gpus.length} GPU(s): ${[...groups.entries()].map(([k, n]) => `${n}× ${k}`).join('; ')} — one vLLM server each (NGPU to use fewer)`;
  return { gpus, line: { ...base, status: 'ok', detail, action: null } };
}
