// fpsweep avtime cut-sample --out DIR: a flat folder of short complete videos made with ffmpeg (../sample/: scene
// changes and silences the builtin cutter reads), and the cut's part of `fpsweep demo`: complete videos → cut
// (builtin) → caption on the stand-in → a videos root the caption viewer opens.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { parseVerbArgs, requiredOutDir, sampleOutFlags } from '../../../cli/options';
import type { DemoContext, DemoStep } from '../../../cli/verb';
import { makeCutSample } from '../sample';

export const summary = 'make a few short complete videos with ffmpeg (scene changes, silences) for `avtime cut`';

const HELP = `usage: fpsweep avtime cut-sample --out DIR

Makes short complete source videos directly in DIR (created; files of the same names are replaced): scene changes and
silences in the audio, one shorter than a minimum segment. Cut them with
  fpsweep avtime cut --input-root DIR --output-root CLIPS --cutter builtin`;

export const flags = sampleOutFlags;

export async function run(args: string[]): Promise<number> {
  const v = parseVerbArgs(args, flags, HELP);
  const out = requiredOutDir(v, HELP);
  const t0 = Date.now();
  const files = await makeCutSample(out);
  process.stdout.write(`cut sample: ${files.length} videos in ${path.resolve(out)} (${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
  return 0;
}

export function demoSteps(ctx: DemoContext): DemoStep[] {
  const sources = path.resolve(`${ctx.out}-cut-sources`);
  const clips = path.resolve(`${ctx.out}-cut`);
  return [
    // Made once (again with --fresh): new sources would be new inputs, and the cut would cut them all again.
    ...(ctx.fresh || !existsSync(sources)
      ? [{ title: 'Cut: make complete sample videos (ffmpeg: scene changes, silences)', argv: ['avtime', 'cut-sample', '--out', sources] }]
      : []),
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
