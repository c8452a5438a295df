// logs/launch_params.txt: the exact vLLM launch lines. The launcher writes, per (re)start,
// `# <iso time> <server id> <start|restart…>` then the line; a seed-style file has the lines only.
// Distinct non-comment lines are the servers' launch lines, in first-seen order.
import { promises as fs } from 'node:fs';

export interface LaunchInfo {
  present: boolean;
  lines: string[];
  servers: number;
  launches: number;
}

export async function readLaunchParams(file: string): Promise<LaunchInfo> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { present: false, lines: [], servers: 0, launches: 0 };
    throw err;
  }
  const lines: string[] = [];
  let launches = 0;
  for (const raw of text.split('\n')) {
    const l = raw.replace(/\r$/, '');
    if (!l.trim() || l.startsWith('#')) continue;
    launches++;
    if (!lines.includes(l)) lines.push(l);
  }
  return { present: true, lines, servers: lines.length, launches };
}
