// Encodes one AVTime sample video with ffmpeg from its plan: lavfi sources drawn by expressions
// (drawbox fills and a moving square; aevalsrc tones, a rising tone, silence, a beep), encoded bit-exact by the
// engine's media helpers (core/media/ffmpeg.ts), so the same plan gives the same bytes on every machine.
import { encodeLavfiAv } from '../../../media/ffmpeg';
import { SAMPLE_AUDIO_RATE, SAMPLE_FPS, SAMPLE_HEIGHT, SAMPLE_WIDTH, type SampleAvVideo } from './plan';

export { probeAv, type ProbedAv } from '../../../media/ffmpeg';

const s = (ms: number) => (ms / 1000).toFixed(3);
const during = (startMs: number, endMs: number) => `gte(t,${s(startMs)})*lt(t,${s(endMs)})`;

export function videoFilter(v: SampleAvVideo): string {
  return v.visual
    .map((seg) => {
      const on = `enable='${during(seg.startMs, seg.endMs)}'`;
      if (seg.look.kind === 'fill') return `drawbox=x=0:y=0:w=iw:h=ih:color=${seg.look.color}:t=fill:${on}`;
      // Left to right across the frame during the overlay.
      const speed = (SAMPLE_WIDTH - 16) / ((seg.endMs - seg.startMs) / 1000);
      return `drawbox=x='(t-${s(seg.startMs)})*${speed.toFixed(3)}':y=${SAMPLE_HEIGHT / 2 - 8}:w=16:h=16:color=white:t=fill:${on}`;
    })
    .join(',');
}

export function audioExpression(v: SampleAvVideo): string {
  const terms = v.audio.flatMap((seg) => {
    const on = during(seg.startMs, seg.endMs);
    const look = seg.look;
    switch (look.kind) {
      case 'silence':
        return [];
      case 'tone':
        return [`${on}*0.4*sin(2*PI*${look.hz}*t)`];
      case 'rise': {
        // Phase of a linear sweep: 2π(f0·τ + (f1 − f0)·τ² / (2·T)), τ = t − start.
        const T = (seg.endMs - seg.startMs) / 1000;
        const tau = `(t-${s(seg.startMs)})`;
        return [`${on}*0.4*sin(2*PI*(${look.fromHz}*${tau}+${((look.toHz - look.fromHz) / (2 * T)).toFixed(3)}*${tau}*${tau}))`];
      }
      case 'beep':
        return [`${on}*lt(mod(t-${s(seg.startMs)},0.25),0.1)*0.3*sin(2*PI*${look.hz}*t)`];
    }
  });
  return terms.length ? terms.join('+') : '0';
}

export async function encodeAvSampleVideo(v: SampleAvVideo, file: string): Promise<void> {
  const spec = { width: SAMPLE_WIDTH, height: SAMPLE_HEIGHT, fps: SAMPLE_FPS, audioRate: SAMPLE_AUDIO_RATE, duration: s(v.plannedMs) };
  await encodeLavfiAv({ ...spec, videoFilter: videoFilter(v), audioExpression: audioExpression(v) }, file, `encode AVTime sample video ${v.videoId}`);
}
