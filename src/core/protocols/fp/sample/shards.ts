// videos/videos_NNN.tar shards (entries `<hash>/video.mp4`, `<hash>/meta.json`) and
// videos/videos_manifest.json, as the origin ships them (SPEC §1, seed §3).
import { createHash } from 'node:crypto';
import { createReadStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as tar from 'tar';
import { videosManifestSchema, type VideosManifest } from '../package/schemas';

/** Fixed entry times so the same videos give byte-identical shards. */
const SHARD_MTIME = new Date(Date.UTC(2026, 9, 1, 0, 0, 0));

export const VIDEOS_PER_SHARD = 4;

export function shardFileName(i: number): string {
  return `videos_${String(i).padStart(3, '0')}.tar`;
}

async function sha256File(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}

/**
 * Packs the `<hash>/` folders found in `storeDir` (in the order given) into shards of
 * VIDEOS_PER_SHARD videos under `videosDir`, and writes videos_manifest.json.
 */
export async function writeShards(storeDir: string, hashes: readonly string[], videosDir: string): Promise<VideosManifest> {
  await fs.mkdir(videosDir, { recursive: true });
  const shards: VideosManifest['shards'] = [];
  for (let s = 0; s * VIDEOS_PER_SHARD < hashes.length; s++) {
    const file = shardFileName(s);
    const target = path.join(videosDir, file);
    const entries = hashes.slice(s * VIDEOS_PER_SHARD, (s + 1) * VIDEOS_PER_SHARD).flatMap((h) => [`${h}/video.mp4`, `${h}/meta.json`]);
    await tar.create({ file: target, cwd: storeDir, portable: true, mtime: SHARD_MTIME, noDirRecurse: true }, entries);
    const { size } = await fs.stat(target);
    shards.push({ file, sha256: await sha256File(target), bytes: size });
  }
  const manifest = videosManifestSchema.parse({ n_videos: hashes.length, shards });
  await fs.writeFile(path.join(videosDir, 'videos_manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  return manifest;
}
