// fpsweep avtime cut-sample --out DIR: a flat folder of short complete videos made with ffmpeg (../sample/: scene
// changes and silences the builtin cutter reads), and the cut's part of `fpsweep demo`: complete videos → cut
// (builtin) → caption on the stand-in → a videos root the caption viewer opens.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { parseVerbArgs, requiredOutDir, sampleOutFlags, type OptionSpec } from '../../../cli/options';
import type { DemoContext, DemoStep } from '../../../cli/verb';
import { CUT_SAMPLE_FILES, makeCutSample } from '../sample';

export const summary = 'make a few short complete videos with ffmpeg (scene changes, silences) for `avtime cut`';

const HELP = `usage: fpsweep avtime cut-sample --out DIR [--fresh]

Makes short complete source videos directly in DIR (created): scene changes and silences in the audio, one shorter
than a minimum segment. A DIR that holds them all is kept; --fresh makes them again (files of the same names replaced). Cut them with
  fpsweep avtime cut --input-root DIR --output-root CLIPS --cutter builtin

Rerun: says it is done ("kept; --fresh makes them again") and exits 0.`;

export const flags = { ...sampleOutFlags, fresh: { type: 'boolean' } } satisfies OptionSpec;

export async function run(args: string[]): Promise<number> {
  const v = parseVerbArgs(args, flags, HELP);
  const out = requiredOutDir(v, HELP);
  // Each file is renamed into place whole (sample/make.ts): all of them there is a sample made before. Made again, they
  // would be new sources (a new mtime) that the next cut cuts again.
  if (v.fresh !== true && CUT_SAMPLE_FILES.every((f) => existsSync(path.join(out, f)))) {
    process.stdout.write(`cut sample: ${CUT_SAMPLE_FILES.length} videos in ${out} (kept; --fresh makes them again)\n`);
    return 0;
  }
  const t0 = Date.now();
  const files = await makeCutSample(out);
  process.stdout.write(`cut sample: ${files.length} videos in ${path.resolve(out)} (${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
  return 0;
}

export function demoSteps(ctx: DemoContext): DemoStep[] {
  const sources = path.resolve(`${ctx.out}-cut-sources`);
  const clips = path.resolve(`${ctx.out}-cut`);
  return [
    // Kept when made before (again with --fresh): new sources would be new inputs, and the cut would cut them all again.
    {
      title: 'Cut: make complete sample videos (ffmpeg: scene changes, silences)',
      argv: ['avtime', 'cut-sample', '--out', sources, ...(ctx.fresh ? ['--fresh'] : [])],
    },
    {
      title: 'Cut: cut them with the builtin cutter (degraded: no ASR, no audio events), validated, published whole',
      argv: ['avtime', 'cut', '--input-root', sources, '--output-root', clips, '--cutter', 'builtin'],
      doneLine: `Cut clips: ${clips} (fpsweep status --package ${clips} --run-type cut)`,
    },
    // The cut's output is a videos root: captioned on the stand-in (a Qwen3-Omni name: it plays that model). On a GPU
    // host the checkpoint is the user's to name, so the demo stops at the cut.
    ...(ctx.standIn
      ? [
          {
            title: 'Cut: caption the cut clips (managed stand-in server): viewer-ready',
            argv: [
              'avtime',
              'caption',
              clips,
              '--model-path',
              path.join(`${clips}-model`, 'Qwen3-Omni-30B-A3B-Thinking'),
              '--gpus',
              '0',
              ...(ctx.takePorts ? ['--base-port', String(ctx.takePorts(1))] : []),
            ],
            doneLine: `Captioned cut: ${path.join(clips, '<video>', 'captions_merged.json')} (open them with "fpsweep: Open caption viewer")`,
          },
        ]
      : []),
  ];
}
