// fpsweep avtime caption-sample --out DIR [--fresh]: a small videos root for segmented captioning, made with ffmpeg
// (../sample/), and its part of `fpsweep demo`: the sample, in `<out>-caption`.
import * as path from 'node:path';
import { parseVerbArgs, requiredOutDir, sampleOutFlags, type OptionSpec } from '../../../cli/options';
import type { DemoContext, DemoStep } from '../../../cli/verb';
import { makeCaptionSample } from '../sample';
import { startDemoGemini } from './geminiDemo';

export const summary = 'make a small videos root for captioning with ffmpeg (clips with audio, mp3 sidecars, one invalid and one untracked directory)';

const HELP = `usage: fpsweep avtime caption-sample --out DIR [--fresh]

Makes a videos root in DIR (SPEC-AVTIME-DATA §2): video directories with segments.json, clips/clip_NNNN.mp4 (video and
audio) and their clip_NNNN.mp3 sidecars, one directory whose segments.json is invalid, one without segments.json.
DIR must be absent or empty, or hold a sample made before: that one is kept, or made again with --fresh.

Rerun: says it is done ("kept; --fresh makes it again") and exits 0.`;

export const flags = {
  ...sampleOutFlags,
  fresh: { type: 'boolean' },
} satisfies OptionSpec;

export async function run(args: string[]): Promise<number> {
  const v = parseVerbArgs(args, flags, HELP);
  const out = requiredOutDir(v, HELP);
  const s = await makeCaptionSample({ out, fresh: v.fresh === true });
  const count = (state: string) => s.videos.filter((x) => x.state === state);
  const clips = count('valid').reduce((n, x) => n + x.clips, 0);
  const invalid = count('invalid').map((x) => `${x.stem} (${x.rule})`);
  process.stdout.write(
    `caption sample videos root: ${s.root}${s.kept ? ' (kept; --fresh makes it again)' : ''}\n` +
      `  ${count('valid').length} valid videos (${clips} clips), invalid: ${invalid.join(', ') || 'none'}, untracked: ${count('untracked')
        .map((x) => x.stem)
        .join(', ')}\n` +
      (s.kept ? '' : `made in ${s.seconds.toFixed(1)} s\n`),
  );
  return 0;
}

/** The demo's videos root: the caption run's input (its run step is the caption run type's). */
export function captionDemoRoot(ctx: Pick<DemoContext, 'out'>): string {
  return path.resolve(`${ctx.out}-caption`);
}

/** The two-word verb as src/cli/runTypeVerbs.ts registers it (pickVerb in src/cli/main.ts dispatches it). */
export const CAPTION_SAMPLE_VERB = 'avtime caption-sample';

export function demoSteps(ctx: DemoContext): DemoStep[] {
  const root = captionDemoRoot(ctx);
  // Gemini captions a videos root of its own: one backend per root (the seed's advice, and the caption verb's rule),
  // so neither step finds the other's captions and the demo runs again in the same folder as often as asked.
  const geminiRoot = `${root}-gemini`;
  const sample = (out: string, title: string): DemoStep => ({
    title,
    argv: [...CAPTION_SAMPLE_VERB.split(' '), '--out', out, ...(ctx.fresh ? ['--fresh'] : [])],
    doneLine: `Caption sample videos root: ${out}`,
  });
  const caption = CAPTION_SAMPLE_VERB.split(' ')[0];
  return [
    sample(root, 'Captioning: make a sample videos root (ffmpeg: clips with audio, mp3 sidecars, one invalid, one untracked directory)'),
    // Without a GPU the stand-in serves the checkpoint named here (a Qwen3-Omni name: it plays that model); on a GPU
    // host a real checkpoint is the user's to name, so the demo stops at the sample.
    ...(ctx.standIn
      ? [
          {
            title: 'Captioning: caption the sample (managed stand-in server, pre-flight counts; the invalid directory fails: exit 1)',
            argv: [
              caption,
              'caption',
              root,
              '--model-path',
              path.join(`${root}-model`, 'Qwen3-Omni-30B-A3B-Thinking'),
              '--gpus',
              '0',
              ...(ctx.takePorts ? ['--base-port', String(ctx.takePorts(1))] : []),
            ],
            okCodes: [1],
            doneLine: `captions: ${path.join(root, '<video>', 'captions_merged.json')} (open them with "fpsweep: Open caption viewer")`,
          },
        ]
      : []),
    // The seed's Gemini fallback (the stand-in Gemini, demoService below) on a sample root of its own; each clip's
    // JSON in <video>/captions/, then the merged captions.
    ...(ctx.standIn && ctx.env.GOOGLE_GEMINI_BASE_URL
      ? [
          sample(geminiRoot, 'Captioning with Gemini: a sample videos root for it'),
          {
            title: 'Captioning with Gemini: the sample through the stand-in Gemini (Files API upload, per-clip JSON; the invalid directory fails: exit 1)',
            argv: [caption, 'caption', geminiRoot, '--backend', 'gemini', '--model', 'gemini-2.5-flash', '--max-inflight-clips', '4', '--poll-ms', '100'],
            okCodes: [1],
            doneLine: `Gemini's per-clip captions: ${path.join(geminiRoot, '<video>', 'captions', 'clip_NNNN.json')}`,
          },
        ]
      : []),
  ];
}

/** The stand-in Gemini the Gemini step talks to (only where the stand-in vLLM serves the demo too). */
export const demoService = startDemoGemini;
