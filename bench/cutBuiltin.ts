// Builtin cutter benchmark (not a test; issue 27 point 4's closing note): clips per second of `cutBuiltin` over the
// cut sample's source videos, against a baseline measured in the same run: one plain ffmpeg decode of the same
// sources (video and audio, one thread, to a null output), the least any cutter that reads the source must do.
//   npx tsx bench/cutBuiltin.ts [--rounds 2] [--jobs 1] [--scale 1280x720] [--keep]
// ROUNDS passes over the sample (alternating baseline and cut, so drifting load hits both alike); JOBS videos at
// once (the run type runs many videos at once, each cut on about one core). --scale re-encodes the sample's videos
// at that size first (the sample is 320x180; real sources are larger, and the cut's cost grows with the pixels).
// Prints the phases of the cut too (signals pass vs clips), read from the cutter's own log lines.
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { runFfmpeg } from '../src/core/media/ffmpeg';
import { BUILTIN_DEFAULTS, cutBuiltin } from '../src/core/protocols/cut/builtin';
import { makeCutSample, planCutSample } from '../src/core/protocols/cut/sample';
import { mapBounded } from '../src/core/runner/mapBounded';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
};

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now();
  const r = await fn();
  return [(performance.now() - t) / 1000, r];
}

const decode = (file: string) =>
  runFfmpeg(
    ['-hide_banner', '-nostdin', '-loglevel', 'error', '-threads', '1', '-i', file, '-map', '0:v:0', '-map', '0:a:0', '-f', 'null', '-'],
    `decode ${file}`,
  );

async function main(): Promise<void> {
  const rounds = Number(arg('rounds', '2'));
  const jobs = Number(arg('jobs', '1'));
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'cut-builtin-bench-'));
  console.log(`work folder: ${root}${process.argv.includes('--keep') ? ' (kept)' : ''}`);
  try {
    const [makeS, sources] = await timed(() => makeCutSample(path.join(root, 'in')));
    const scale = arg('scale', '');
    if (scale) {
      const [w, h] = scale.split('x').map(Number);
      const [s, scaled] = await timed(() =>
        mapBounded(sources, 2, async (src) => {
          const out = path.join(root, 'scaled', path.basename(src));
          await fs.mkdir(path.dirname(out), { recursive: true });
          const args = ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', '-i', src, '-vf', `scale=${w}:${h}`, '-c:v', 'libx264', '-preset', 'ultrafast'];
          await runFfmpeg([...args, '-c:a', 'copy', out], `scale ${src}`);
          return out;
        }),
      );
      sources.splice(0, sources.length, ...scaled);
      console.log(`sample re-encoded at ${w}x${h} in ${s.toFixed(2)} s`);
    }
    const sourceS = planCutSample().reduce((s, v) => s + v.durationS, 0);
    console.log(`sample: ${sources.length} videos, ${sourceS} s of source, made in ${makeS.toFixed(2)} s`);
    console.log(`${jobs} job(s) at once, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}`);
    let decodeS = 0;
    let cutS = 0;
    let clips = 0;
    let signalsS = 0;
    let clipsS = 0;
    for (let r = 0; r < rounds; r++) {
      decodeS += (await timed(() => mapBounded(sources, jobs, decode)))[0];
      const [s, counts] = await timed(() =>
        mapBounded(sources, jobs, async (input) => {
          const log = (l: string) => {
            const sig = /^signals in ([\d.]+) s/.exec(l);
            const cl = /^\d+ clips in ([\d.]+) s/.exec(l);
            if (sig) signalsS += Number(sig[1]);
            if (cl) clipsS += Number(cl[1]);
          };
          const videoDir = path.join(root, 'out', String(r), path.basename(input, '.mp4'));
          return (await cutBuiltin({ input, videoDir, config: BUILTIN_DEFAULTS, log })).segments;
        }),
      );
      cutS += s;
      clips += counts.reduce((a, b) => a + b, 0);
    }
    const total = sourceS * rounds;
    console.log(`baseline, ffmpeg decode (1 thread): ${decodeS.toFixed(2)} s for ${total} s of source, ${(total / decodeS).toFixed(0)}× real time`);
    console.log(
      `builtin cutter: ${cutS.toFixed(2)} s for ${clips} clips (${total} s of source): ${(clips / cutS).toFixed(2)} clips/s, ` +
        `${(total / cutS).toFixed(1)}× real time, ${(cutS / decodeS).toFixed(1)}× the decode baseline`,
    );
    console.log(
      `  summed over the videos: the signals pass ${signalsS.toFixed(2)} s (${(signalsS / decodeS).toFixed(2)}× the decode), the clips ${clipsS.toFixed(2)} s`,
    );
  } finally {
    if (!process.argv.includes('--keep')) await fs.rm(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exitCode = 1;
});
