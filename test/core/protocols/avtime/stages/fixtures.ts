// Hand-made bench roots for the stage tests: N videos, each a copy of one tiny real clip (2 s, 64x48, 10 fps,
// a 440 Hz track) that ffmpeg makes once a process: the target pre-flight probes the first of each shard, the
// inputs stage probes every file with ffprobe (tinyMedia makes the files without a stream).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export function tmpDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `fpsweep-avtime-${prefix}-`));
}

/** A copy of the sample bench `from` in a fresh temp folder, its inventory's absolute media paths pointed at the copy. */
export function copyBench(from: string, prefix: string): string {
  const dir = path.join(tmpDir(prefix), 'bench');
  fs.cpSync(from, dir, { recursive: true });
  const inv = path.join(dir, 'inventory.jsonl');
  fs.writeFileSync(
    inv,
    fs
      .readFileSync(inv, 'utf8')
      .split(from + path.sep)
      .join(dir + path.sep),
  );
  return dir;
}

let clip: string | null = null;
/** The tiny clip every fixture video copies (made once a process). */
export function fixtureClip(): string {
  if (clip && fs.existsSync(clip)) return clip;
  const file = path.join(tmpDir('clip'), 'clip.mp4');
  const lavfi = ['-f', 'lavfi', '-i', 'color=c=red:s=64x48:r=10:d=2', '-f', 'lavfi', '-i', 'sine=f=440:d=2'];
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...lavfi, '-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac', '-shortest', file]);
  clip = file;
  return file;
}

export type TinyMediaKind = 'av' | 'video-only' | 'audio-only';
const tinyMediaCache = new Map<TinyMediaKind, Buffer>();

/** A 0.4 s file made once per process with ffmpeg: video and audio, video only (mp4), or audio only (m4a). */
export function tinyMedia(kind: TinyMediaKind): Buffer {
  const cached = tinyMediaCache.get(kind);
  if (cached) return cached;
  const file = path.join(tmpDir('media'), kind === 'audio-only' ? 'a.m4a' : 'v.mp4');
  const video = ['-f', 'lavfi', '-i', 'color=c=blue:s=32x32:r=5:d=0.4'];
  const audio = ['-f', 'lavfi', '-i', 'sine=f=440:d=0.4:sample_rate=16000'];
  const inputs = kind === 'av' ? [...video, ...audio] : kind === 'video-only' ? video : audio;
  const vcodec = kind === 'audio-only' ? [] : ['-c:v', 'libx264', '-preset', 'ultrafast', '-threads', '1', '-pix_fmt', 'yuv420p'];
  const acodec = kind === 'video-only' ? [] : ['-c:a', 'aac', '-ac', '1'];
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', ...inputs, ...vcodec, ...acodec, '-fflags', '+bitexact', file]);
  const bytes = fs.readFileSync(file);
  tinyMediaCache.set(kind, bytes);
  return bytes;
}

export interface FixtureRow {
  test: Record<string, unknown>;
  inventory: Record<string, unknown>;
}

export function fixtureRows(root: string, n: number): FixtureRow[] {
  const media = path.join(root, 'media');
  fs.mkdirSync(media, { recursive: true });
  const rows: FixtureRow[] = [];
  for (let i = 0; i < n; i++) {
    const vid = `vid_${String(i).padStart(3, '0')}`;
    const file = path.join(media, `${vid}.mp4`);
    fs.copyFileSync(fixtureClip(), file);
    rows.push({
      test: {
        id: `rec_${i}`,
        videos: [`/data/${vid}.mp4`],
        messages: [
          { role: 'system', content: 'placeholder' },
          { role: 'user', content: '<video>' },
          { role: 'assistant', content: `From 00 to 10, reference of ${vid}` },
        ],
        metadata: { video_id: vid, duration_ms: 60_000 + i * 1000 },
      },
      inventory: { stable_id: `s${i}`, video_id: vid, duration_ms: 60_000 + i * 1000, sha256: 'a'.repeat(64), resolved_media_path: file },
    });
  }
  return rows;
}

export function writeBench(root: string, rows: FixtureRow[], opts: { testText?: string; inventoryText?: string } = {}): void {
  fs.mkdirSync(root, { recursive: true });
  fs.writeFileSync(path.join(root, 'test.jsonl'), opts.testText ?? rows.map((r) => JSON.stringify(r.test) + '\n').join(''));
  fs.writeFileSync(path.join(root, 'inventory.jsonl'), opts.inventoryText ?? rows.map((r) => JSON.stringify(r.inventory) + '\n').join(''));
  fs.mkdirSync(path.join(root, 'prompts'), { recursive: true });
  fs.writeFileSync(path.join(root, 'prompts', 'target.txt'), 'Describe the events. One line per event: From XX to YY, caption\n');
}

/** Every file under a folder (relative paths), to prove a refusal wrote nothing. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(path.relative(dir, p));
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out.sort();
}
