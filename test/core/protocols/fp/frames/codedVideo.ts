// Small test videos whose every frame shows its own index (src/core/protocols/fp/sample/frameCode.ts), so a test can
// read back from a JPEG which stored frame it holds. meta.json comes from ffprobe, as the data side does.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { drawFrame } from '../../../../../src/core/protocols/fp/sample/frameCode';
import { videoMetaSchema, type VideoMeta } from '../../../../../src/core/protocols/fp/package/schemas';

const loadExeca = () => import('execa').then((m) => m.execa);

export interface CodedVideoSpec {
  width: number;
  height: number;
  nFrames: number;
  /** Frame spacing (default 500 ms: the store's 2 fps). */
  spacingMs?: number;
  tag?: number;
  /** moov atom first (so a cut file still opens and ends early instead of not opening). */
  faststart?: boolean;
}

export interface CodedVideo {
  hash: string;
  videoPath: string;
  meta: VideoMeta;
}

/** Writes <root>/<hash>/video.mp4 (+ meta.json) and returns its meta. */
export async function makeCodedVideo(root: string, hash: string, spec: CodedVideoSpec): Promise<CodedVideo> {
  const dir = path.join(root, hash);
  await fs.mkdir(dir, { recursive: true });
  const videoPath = path.join(dir, 'video.mp4');
  const spacing = spec.spacingMs ?? 500;
  const execa = await loadExeca();
  const proc = execa(
    'ffmpeg',
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-nostdin',
      '-y',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'gray',
      '-s',
      `${spec.width}x${spec.height}`,
      '-framerate',
      `1000/${spacing}`,
      '-i',
      'pipe:0',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-crf',
      '23',
      '-pix_fmt',
      'yuv420p',
      '-g',
      '30',
      ...(spec.faststart ? ['-movflags', '+faststart'] : []),
      videoPath,
    ],
    { stdin: 'pipe', stdout: 'ignore', stderr: 'pipe', reject: false },
  );
  const frame = Buffer.allocUnsafe(spec.width * spec.height);
  for (let k = 0; k < spec.nFrames; k++) {
    drawFrame(spec.width, spec.height, { frameIndex: k, videoTag: spec.tag ?? 1 }, frame);
    if (!proc.stdin!.write(Buffer.from(frame))) await new Promise((r) => proc.stdin!.once('drain', r));
  }
  proc.stdin!.end();
  const enc = await proc;
  if (enc.exitCode !== 0) throw new Error(`ffmpeg could not make the test video: ${String(enc.stderr)}`);
  const probe = await execa('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'frame=pts_time', '-of', 'json', videoPath]);
  const frames = (JSON.parse(String(probe.stdout)) as { frames: Array<{ pts_time: string }> }).frames;
  const timestamps = frames.map((f) => Number(f.pts_time));
  // Validated as the runner validates meta.json (finite, strictly ascending, n_frames = timestamps).
  const meta: VideoMeta = videoMetaSchema.parse({
    hash,
    width: spec.width,
    height: spec.height,
    duration_s: (timestamps.length * spacing) / 1000,
    n_frames: timestamps.length,
    timestamps,
    too_short: timestamps.length <= 32,
  });
  if (meta.n_frames !== spec.nFrames) throw new Error(`test video has ${meta.n_frames} frames, made ${spec.nFrames}`);
  await fs.writeFile(path.join(dir, 'meta.json'), JSON.stringify(meta));
  return { hash, videoPath, meta };
}
