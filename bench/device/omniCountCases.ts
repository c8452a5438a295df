// The cases for bench/device/omni_counts.py: clip lengths, frame sizes, frame rates and audio tracks, each with
// what our Qwen3-Omni model module sends the processor (frames, their size, the request's processor kwargs, the
// audio at 16 kHz) and the placeholder counts it predicts, for AVTime-Bench's target request (the reference's
// frames and the server's own resize under the plan's pixel bounds) and for the caption request (docs/COUNTS-CHECK.md).
//   npx tsx bench/device/omniCountCases.ts OUT.json [SEED]
import { writeFileSync } from 'node:fs';
import { SeededRandom } from '../../src/core/seededRandom';
import { audioTokens, processorFrameSize, resampledLength, videoTokens } from '../../src/core/serving/models/qwen3Omni/counts';
import { planRequestFields, targetPlan } from '../../src/core/serving/models/qwen3Omni/videoPlan';
import { captionFrameCount } from '../../src/core/protocols/caption/request';
import type { MediaFacts } from '../../src/core/serving/models/qwen3Omni/mediaFacts';

interface Video {
  /** Frames handed to the processor, each height × width. */
  frames: number;
  height: number;
  width: number;
  /** The request's (or the reference's) videos kwargs for the processor, beside the defaults. */
  kwargs: Record<string, unknown>;
}
export interface CountCase {
  id: string;
  kind: 'avtime-reference' | 'avtime-server' | 'caption';
  facts: MediaFacts & { durationS: number };
  video: Video;
  /** Audio samples at 16 kHz handed to the feature extractor; null: no audio part. */
  audio16k: number | null;
  useAudioInVideo: boolean;
  predicted: { video: number; audio: number };
  /** The size our rules say the processor resizes each frame to (for reading a mismatch). */
  predictedSize: { height: number; width: number };
}

const COMMON: [number, number][] = [
  [640, 360],
  [1280, 720],
  [1920, 1080],
  [3840, 2160],
  [720, 1280],
  [1080, 1920],
  [480, 480],
  [426, 240],
  [854, 480],
  [1440, 1080],
  [640, 480],
  [320, 240],
  [2560, 1440],
];
const RATES = [15, 23.976, 24, 25, 29.97, 30, 50, 59.94, 60];
const AUDIO_RATES = [16000, 22050, 32000, 44100, 48000];
/** Frames × height × width the device turns into tensors for one case at most (a 4K clip of minutes would need tens of GB). */
const VOLUME_CAP = 1.2e9;
const volume = (v: Video) => v.frames * v.height * v.width;

function size(r: SeededRandom): [number, number] {
  if (r.next() < 0.5) return r.pick(COMMON);
  // Random sizes, aspect within 1:4, a third of them next to a multiple of 32 (the processor's factor).
  const w = 64 + r.int(2500);
  const h = Math.max(48, Math.min(2600, Math.round(w * (0.25 + r.next() * 3.75))));
  if (r.next() < 0.33) return [Math.max(32, Math.round(w / 32) * 32 + r.int(3) - 1), Math.max(32, Math.round(h / 32) * 32 + r.int(3) - 1)];
  return [w, h];
}
/** Log-uniform in [lo, hi]. */
const logUniform = (r: SeededRandom, lo: number, hi: number) => Math.exp(Math.log(lo) + r.next() * (Math.log(hi) - Math.log(lo)));

function facts(r: SeededRandom, durationS: number, audioShare: number): MediaFacts & { durationS: number } {
  const [width, height] = size(r);
  const fps = r.pick(RATES);
  const totalFrames = Math.max(1, Math.round(durationS * fps));
  const sampleRate = r.pick(AUDIO_RATES);
  // A decoded track is rarely exactly duration × rate samples long: a few ms either way.
  const audio = r.next() < audioShare ? { sampleRate, samples: Math.max(1, Math.round(durationS * sampleRate) + r.int(2001) - 1000) } : null;
  return { width, height, fps, totalFrames, audio, durationS };
}

export function countCases(seed: number, perKind: number): CountCase[] {
  const r = new SeededRandom(seed);
  const out: CountCase[] = [];
  for (let i = 0; i < perKind; i++) {
    // AVTime-Bench's target videos: a second to ten minutes.
    const f = facts(r, logUniform(r, 1, 600), 0.8);
    const audioInVideo = f.audio !== null && r.next() < 0.75;
    const plan = targetPlan(f, audioInVideo);
    const audio16k = audioInVideo ? plan.audioSamples16k : null;
    out.push({
      id: `avtime-ref-${i}`,
      kind: 'avtime-reference',
      facts: f,
      // The reference hands the processor qwen_omni_utils' frames at its size; the processor's defaults do the rest.
      video: { frames: plan.nframes, height: plan.referenceSize.height, width: plan.referenceSize.width, kwargs: {} },
      audio16k,
      useAudioInVideo: audioInVideo,
      predicted: plan.predicted,
      predictedSize: plan.modelSize,
    });
    const server: Video = { frames: plan.nframes, height: f.height, width: f.width, kwargs: plan.serverPixels ? planRequestFields(plan).videos_kwargs : {} };
    if (plan.serverPixels && volume(server) <= VOLUME_CAP) {
      // The server decodes the file's own frames and resizes once, under the request's videos_kwargs.
      out.push({
        id: `avtime-server-${i}`,
        kind: 'avtime-server',
        facts: f,
        video: server,
        audio16k,
        useAudioInVideo: audioInVideo,
        predicted: plan.predicted,
        predictedSize: plan.modelSize,
      });
    }
  }
  for (let i = 0; i < perKind; i++) {
    // AVCut clips: half a second to two minutes, an mp3 sidecar each (its own rate).
    let f = facts(r, logUniform(r, 0.5, 120), 1);
    while (captionFrameCount(f.durationS, f.totalFrames) * f.height * f.width > VOLUME_CAP) f = facts(r, logUniform(r, 0.5, 120), 1);
    const frames = captionFrameCount(f.durationS, f.totalFrames);
    const model = processorFrameSize(f.height, f.width);
    const audio16k = resampledLength(f.audio!.samples, f.audio!.sampleRate);
    out.push({
      id: `caption-${i}`,
      kind: 'caption',
      facts: f,
      video: { frames, height: f.height, width: f.width, kwargs: { fps: frames / f.durationS } },
      audio16k,
      useAudioInVideo: false,
      predicted: { video: videoTokens(frames, model.height, model.width), audio: audioTokens(audio16k) },
      predictedSize: model,
    });
  }
  return out;
}

if (require.main === module) {
  const [file, seed] = process.argv.slice(2);
  if (!file) {
    console.error('usage: tsx bench/device/omniCountCases.ts OUT.json [SEED]');
    process.exit(2);
  }
  const cases = countCases(Number(seed ?? 25), 200);
  writeFileSync(file, JSON.stringify({ seed: Number(seed ?? 25), cases }));
  console.log(`${cases.length} cases -> ${file}`);
}
