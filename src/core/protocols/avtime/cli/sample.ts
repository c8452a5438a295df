// fpsweep avtime sample --out DIR: a small complete AVTime bench root made with ffmpeg.
import { parseVerbArgs, requiredOutDir, sampleOutFlags } from '../../../cli/options';
import { makeAvtimeSample } from '../sample';

export const summary = 'make a small complete AVTime bench root with ffmpeg (videos with audio, test/inventory/manifest, prompts)';

const HELP = `usage: fpsweep avtime sample --out DIR

Makes a small AVTime bench root in DIR (SPEC-AVTIME §1; DIR must be absent or empty).

Rerun: refuses (exit 2) once DIR holds a bench root: choose a new --out.`;

export const flags = sampleOutFlags;

export async function run(args: string[]): Promise<number> {
  const v = parseVerbArgs(args, flags, HELP);
  const out = requiredOutDir(v, HELP);
  const s = await makeAvtimeSample({ out });
  const q = Object.entries(s.queries)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  process.stdout.write(
    `AVTime sample bench: ${s.root}\n  ${s.videos} videos (${(s.totalMs / 1000).toFixed(1)} s with audio), queries: ${q}\nmade in ${s.seconds.toFixed(1)} s\n`,
  );
  return 0;
}
