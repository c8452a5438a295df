// Shards for prepare tests: good ones made by node-tar from real folders, bad ones written header
// by header (node-tar's writer would not produce `..`, absolute paths or escaping links).
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as tar from 'tar';
import { tempDir } from '../returns/tmpDirs';

export interface RawEntry {
  path: string;
  type?: 'File' | 'Directory' | 'SymbolicLink' | 'Link';
  body?: string;
  linkpath?: string;
}

/** A tar archive from raw headers: exactly the entries given, no normalisation. */
export function rawTar(entries: RawEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const body = Buffer.from(e.body ?? '');
    const type = e.type ?? 'File';
    const h = new tar.Header({
      path: e.path,
      type,
      size: type === 'File' ? body.length : 0,
      linkpath: e.linkpath ?? '',
      mode: type === 'Directory' ? 0o755 : 0o644,
      mtime: new Date(0),
      uid: 0,
      gid: 0,
      uname: '',
      gname: '',
    });
    const block = Buffer.alloc(512);
    h.encode(block, 0);
    blocks.push(block);
    if (type === 'File' && body.length) {
      blocks.push(body, Buffer.alloc((512 - (body.length % 512)) % 512));
    }
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

export function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

export function meta(hash: string): string {
  return JSON.stringify({ hash, width: 1280, height: 720, duration_s: 2, n_frames: 2, timestamps: [0, 0.5], too_short: true });
}

/** Package with shards: videos_a.tar (h1, h2), videos_b.tar (h3); the manifest also names h4. */
export async function makeShardPackage(): Promise<{ dir: string; shards: Record<string, Buffer> }> {
  const dir = await tempDir('fp-prepare-');
  const src = await tempDir('fp-prepare-src-');
  for (const h of ['h1', 'h2', 'h3']) {
    await fs.mkdir(path.join(src, h));
    await fs.writeFile(path.join(src, h, 'video.mp4'), `mp4 bytes of ${h} `.repeat(200));
    await fs.writeFile(path.join(src, h, 'meta.json'), meta(h));
  }
  await fs.mkdir(path.join(dir, 'videos'), { recursive: true });
  await fs.mkdir(path.join(dir, 'manifest'), { recursive: true });
  await tar.c({ cwd: src, file: path.join(dir, 'videos', 'videos_a.tar'), portable: true }, ['h1', 'h2']);
  await tar.c({ cwd: src, file: path.join(dir, 'videos', 'videos_b.tar'), portable: true }, ['h3']);
  const shards: Record<string, Buffer> = {};
  for (const f of ['videos_a.tar', 'videos_b.tar']) shards[f] = await fs.readFile(path.join(dir, 'videos', f));
  await writeManifest(dir, 3, shards);
  const rows = [
    ['B1', 'v1', 'h1'],
    ['B1', 'v2', 'h2'],
    ['B2', 'v3', 'h3'],
    ['B2', 'v4', 'h4'],
  ];
  await fs.writeFile(
    path.join(dir, 'manifest', 'manifest_subset.jsonl'),
    rows.map(([benchmark, video_id, hash]) => JSON.stringify({ benchmark, video_id, hash })).join('\n') + '\n',
  );
  return { dir, shards };
}

export async function writeManifest(dir: string, nVideos: number, shards: Record<string, Buffer>): Promise<void> {
  const m = { n_videos: nVideos, shards: Object.entries(shards).map(([file, b]) => ({ file, sha256: sha256(b), bytes: b.length })) };
  await fs.writeFile(path.join(dir, 'videos', 'videos_manifest.json'), JSON.stringify(m));
}

/** Adds a shard with the given bytes and a correct manifest line (so only the entry policy can stop it). */
export async function addShard(dir: string, file: string, bytes: Buffer, shards: Record<string, Buffer>, nVideos = 3): Promise<void> {
  shards[file] = bytes;
  await fs.writeFile(path.join(dir, 'videos', file), bytes);
  await writeManifest(dir, nVideos, shards);
}
