// fpsweep sample --out DIR [--no-extract] [--scale N] [--force]: a small complete run package.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { InputError, UsageError } from '../../core/errors';
import { numberFlag, parseVerbArgs, refuseLinkedOutDir, stringFlag, type OptionSpec } from '../../core/cli/options';
import { makeSamplePackage, type SampleSummary } from '../../core/protocols/fp/sample';

export const summary = 'make a small complete run package with ffmpeg (tests, benchmarks, demo)';

const HELP = `usage: fpsweep sample --out DIR [--no-extract] [--scale N] [--planted] [--force]

Makes a small run package in DIR (SPEC §1): items of MVBench, NExTQA, EgoSchema, LVBench and
TimeScope, their manifest, videos encoded with ffmpeg (tar shards + videos_manifest.json), and
some base-condition rows that "already exist" in results/.
--out DIR      the package folder (must be absent or empty; --package DIR works too)
--no-extract   leave only the shards in videos/ (for \`fpsweep prepare\`)
--scale N      N times the videos and items (default 1)
--planted      add four benchmarks with planted effects (pixels, frames, blind, null) that the
               stand-in vLLM answers by the frames' count and size, for \`fpsweep findings\`
--force        replace a sample package already in DIR

Rerun: refuses (exit 2) once DIR holds a package: choose a new --out, or --force to replace it.`;

/** What a run package holds at its top level: the only paths --force removes. */
const PACKAGE_ENTRIES = ['items', 'manifest', 'videos', 'data', 'results', 'logs', '.fpsweep', '.sample-staging'];

async function clearPackage(dir: string): Promise<void> {
  let entries: string[];
  try {
    entries = await fs.readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (entries.length === 0) return;
  if (!entries.some((e) => e === 'items' || e === 'videos' || e === 'manifest')) {
    throw new InputError(`${dir} is not empty and does not look like a run package; not touching it`);
  }
  const others = entries.filter((e) => !PACKAGE_ENTRIES.includes(e) && !e.startsWith('fp_returns'));
  if (others.length > 0) {
    throw new InputError(`${dir} holds files that are not part of a run package (${others.slice(0, 5).join(', ')}); not touching it`);
  }
  for (const e of entries) await fs.rm(path.join(dir, e), { recursive: true, force: true });
}

export function describeSummary(s: SampleSummary): string {
  const perBench = s.benchmarks.map((b) => `${b} ${s.itemsByBenchmark[b]}`).join(', ');
  return [
    `sample package: ${s.root}`,
    `  ${s.benchmarks.length} benchmarks, ${s.items} items (${perBench})`,
    `  ${s.videos} videos (${s.frames} frames) in ${s.shards} shards` +
      `${s.extracted ? ', extracted to data/store/normalized' : ' (not extracted: run `fpsweep prepare`)'}`,
    `  ${s.existingRows} existing base-condition rows in results/conditions_results.csv`,
    `made in ${s.seconds.toFixed(1)} s`,
  ].join('\n');
}

export const flags = {
  out: { type: 'string', short: 'o', meta: 'DIR', value: { kind: 'path', is: 'out-dir' } },
  package: { type: 'string', short: 'p', meta: 'DIR', value: { kind: 'path', is: 'out-dir' } },
  'no-extract': { type: 'boolean' },
  scale: { type: 'string', meta: 'N', value: { kind: 'int', min: 1, max: 1000, env: 'FPSWEEP_SAMPLE_SCALE', default: 1 } },
  force: { type: 'boolean' },
  planted: { type: 'boolean' },
} satisfies OptionSpec;

export async function run(args: string[]): Promise<number> {
  const v = parseVerbArgs(args, flags, HELP);
  const out = stringFlag(v, 'out') ?? stringFlag(v, 'package');
  if (!out) throw new UsageError(`--out DIR is required\n\n${HELP}`);
  refuseLinkedOutDir(out);
  const scale = numberFlag(v, 'scale')!;
  if (v.force === true) await clearPackage(path.resolve(out));
  const tty = process.stderr.isTTY;
  const made = await makeSamplePackage({
    out,
    extract: v['no-extract'] !== true,
    scale,
    planted: v.planted === true,
    onVideo: (done, total, video) => {
      const line = `encoded ${done}/${total} videos (${video.width}x${video.height}, ${video.nFrames} frames)`;
      process.stderr.write(tty ? `\r${line}\x1b[K${done === total ? '\n' : ''}` : `${line}\n`);
    },
  });
  process.stdout.write(describeSummary(made) + '\n');
  return 0;
}
