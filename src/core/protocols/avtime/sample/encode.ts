// Encodes one AVTime sample video with ffmpeg from its plan: lavfi sources drawn by expressions
// (drawbox fills and a moving square; aevalsrc tones, a rising tone, silence, a beep), libx264 on one
// thread and AAC, bit-exact, so the same plan gives the same bytes on every machine.
import { z } from 'zod';
import { SAMPLE_AUDIO_RATE, SAMPLE_FPS, SAMPLE_HEIGHT, SAMPLE_WIDTH, type SampleAvVideo } from './plan';

const ffmpegBin = () => process.env.FFMPEG_BIN || 'ffmpeg';
const ffprobeBin = () => process.env.FFPROBE_BIN || 'ffprobe';
const loadExeca = () => import('execa').then((m) => m.execa);

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
  const d = s(v.plannedMs);
  const args = [
    '-hide_banner',
    '-loglevel',
    'error',
    '-nostdin',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `color=c=black:s=${SAMPLE_WIDTH}x${SAMPLE_HEIGHT}:r=${SAMPLE_FPS}:d=${d}`,
    '-f',
    'lavfi',
    '-i',
    `aevalsrc='${audioExpression(v)}':s=${SAMPLE_AUDIO_RATE}:d=${d}`,
    '-vf',
    videoFilter(v),
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-crf',
    '30',
    '-threads',
    '1',
    '-pix_fmt',
    'yuv420p',
    '-g',
    String(SAMPLE_FPS),
    '-c:a',
    'aac',
    '-b:a',
    '32k',
    '-ac',
    '1',
    '-map_metadata',
    '-1',
    '-fflags',
    '+bitexact',
    '-flags:v',
    '+bitexact',
    '-flags:a',
    '+bitexact',
    '-movflags',
    '+faststart',
    file,
  ];
  const execa = await loadExeca();
  const r = await execa(ffmpegBin(), args, { reject: false, stdin: 'ignore' });
  if (r.failed) {
    const why =
      (r as { code?: string }).code === 'ENOENT'
        ? `${ffmpegBin()} was not found; install ffmpeg (e.g. apt-get install -y ffmpeg) or set FFMPEG_BIN`
        : `exit ${r.exitCode ?? '?'}: ${String(r.stderr).trim() || r.shortMessage}`;
    throw new Error(`ffmpeg failed to encode AVTime sample video ${v.videoId}: ${why}`);
  }
}

const ProbeJson = z.object({
  streams: z.array(z.object({ codec_type: z.string() }).passthrough()),
  format: z.object({ duration: z.string() }).passthrough(),
});

export interface ProbedAv {
  durationMs: number;
  hasVideo: boolean;
  hasAudio: boolean;
}

/** What ffprobe reads: the audited duration (the container's, in ms) and the stream kinds. */
export async function probeAv(file: string): Promise<ProbedAv> {
  const execa = await loadExeca();
  const r = await execa(ffprobeBin(), ['-v', 'error', '-show_entries', 'stream=codec_type:format=duration', '-of', 'json', file], { reject: false });
  if (r.failed) {
    const why =
      (r as { code?: string }).code === 'ENOENT'
        ? `${ffprobeBin()} was not found; install ffmpeg or set FFPROBE_BIN`
        : String(r.stderr).trim() || r.shortMessage;
    throw new Error(`ffprobe could not read ${file}: ${why}`);
  }
  const j = ProbeJson.parse(JSON.parse(r.stdout));
  return {
    durationMs: Math.round(Number(j.format.duration) * 1000),
    hasVideo: j.streams.some((x) => x.codec_type === 'video'),
    hasAudio: j.streams.some((x) => x.codec_type === 'audio'),
  };
}
