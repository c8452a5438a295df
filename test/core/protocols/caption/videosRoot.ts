// A tiny videos root for the caption tests, made with ffmpeg once per test file: one 1.2 s clip (64x64, 10 fps,
// with a tone) and its mp3 sidecar, copied into every video directory; segments.json per video as the cut writes it.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const CLIP_S = 1.2;

export interface MediaPair {
  mp4: string;
  mp3: string;
}

/** One clip and its sidecar in `dir` (ffmpeg). */
export function makeClipMedia(dir: string): MediaPair {
  const mp4 = path.join(dir, 'clip.mp4');
  const mp3 = path.join(dir, 'clip.mp3');
  const ff = (args: string[]) => execFileSync(process.env.FFMPEG_BIN || 'ffmpeg', ['-v', 'error', '-y', ...args], { stdio: 'pipe' });
  ff([
    '-f',
    'lavfi',
    '-i',
    `testsrc=size=64x64:rate=10:duration=${CLIP_S}`,
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:duration=${CLIP_S}`,
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-shortest',
    mp4,
  ]);
  ff(['-i', mp4, '-vn', '-c:a', 'libmp3lame', '-b:a', '64k', mp3]);
  return { mp4, mp3 };
}

export function segmentsDoc(inputVideo: string, clips: number, opts: { gapAfter?: number } = {}) {
  const segments = Array.from({ length: clips }, (_, i) => {
    const start = Math.round(i * CLIP_S * 1000) / 1000 + (opts.gapAfter !== undefined && i > opts.gapAfter ? 0.5 : 0);
    const end = Math.round((start + CLIP_S) * 1000) / 1000;
    return {
      index: i + 1,
      clip_path: `clips/clip_${String(i + 1).padStart(4, '0')}.mp4`,
      start_sec: start,
      end_sec: end,
      duration_sec: Math.round((end - start) * 1000) / 1000,
      boundary: { source: i === 0 ? 'start' : 'scene' },
      labels: { audio: [], visual: [], joint: [] },
    };
  });
  return {
    input_video: inputVideo,
    duration_sec: segments[segments.length - 1].end_sec,
    detectors: { asr: 'unavailable', scene: 'ffmpeg', audio_events: 'unavailable' },
    config: {},
    candidates: {},
    segments,
  };
}

/** A video directory `<root>/<stem>` with `clips` copies of the media and its segments.json. */
export function addVideo(root: string, stem: string, media: MediaPair, clips: number, opts: { gapAfter?: number } = {}): void {
  const dir = path.join(root, stem);
  fs.mkdirSync(path.join(dir, 'clips'), { recursive: true });
  for (let i = 1; i <= clips; i++) {
    const base = path.join(dir, 'clips', `clip_${String(i).padStart(4, '0')}`);
    fs.copyFileSync(media.mp4, `${base}.mp4`);
    fs.copyFileSync(media.mp3, `${base}.mp3`);
  }
  fs.writeFileSync(path.join(dir, 'segments.json'), JSON.stringify(segmentsDoc(`/data/videos/${stem}.mp4`, clips, opts), null, 2));
}

export function tmpRoot(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}
