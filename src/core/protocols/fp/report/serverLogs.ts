// Lines of logs/vllm_gpu*.log that explain a burst of failures (seed §5: hundreds of failures for
// one benchmark × condition → a vLLM restart; look for OOM). Read line by line: logs can be large.
import { createReadStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import type { LogLine } from './schema';

/** OOM and engine-death signatures of vLLM / PyTorch / the kernel. */
export const SERVER_TROUBLE = new RegExp(
  [
    'out of memory',
    'OutOfMemoryError',
    '\\bOOM\\b',
    'CUDA error',
    'EngineDeadError',
    'EngineCore .*(died|failed)',
    'Engine core .*(died|failed)',
    'RuntimeError',
    'Killed',
    'Segmentation fault',
    'core dumped',
    'NCCL error',
  ].join('|'),
  'i',
);

export async function vllmLogFiles(logsDir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(logsDir);
  } catch {
    return [];
  }
  return names
    .filter((n) => /^vllm_gpu\d+\.log$/.test(n))
    .sort((a, b) => Number(a.match(/\d+/)![0]) - Number(b.match(/\d+/)![0]))
    .map((n) => path.join(logsDir, n));
}

export async function scanServerLogs(files: string[], max = 50): Promise<LogLine[]> {
  const out: LogLine[] = [];
  for (const file of files) {
    const rl = readline.createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
    let n = 0;
    for await (const line of rl) {
      n++;
      if (out.length < max && SERVER_TROUBLE.test(line)) out.push({ file, line: n, text: line.length > 500 ? `${line.slice(0, 500)}…` : line });
    }
  }
  return out;
}
