// A process's tree as Slurm's proctrack/linuxproc sees it: its descendants, found by parent (not by process group).
import { promises as fs } from 'node:fs';

/** Every live descendant of `pid`, found by parent as proctrack/linuxproc finds a job's processes. */
export async function descendants(pid: number): Promise<number[]> {
  const parent = new Map<number, number>();
  for (const e of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const stat = await fs.readFile(`/proc/${e}/stat`, 'utf8').catch(() => null);
    if (stat) parent.set(Number(e), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [c, pp] of parent) {
      if (pp !== p) continue;
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}
