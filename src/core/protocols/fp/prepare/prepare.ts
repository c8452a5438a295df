// `fpsweep prepare` (seed §3): verify every shard's sha256 against videos/videos_manifest.json
// (streamed, shards hashed in parallel with a bound, progress with bytes/s and ETA; a verification
// is remembered and not repeated unless size or mtime changed), check free disk, extract the good
// shards into data/store/normalized, count videos against n_videos, list what is missing, and
// optionally delete the shards that were verified and extracted.
import { mapBounded } from '../../../runner/mapBounded';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InputError } from '../../../errors';
import { PackageLayout } from '../package/layout';
import { describeZodError } from '../../../package/jsonl';
import { videosManifestSchema, type VideosManifest } from '../package/schemas';
import { hashAndScanShard } from './hashShard';
import { extractShard } from './extract';
import { RefusedEntryError } from './entryPolicy';
import { countVideos, type VideoCount } from './countVideos';
import { cachedVerification, loadVerifiedCache, saveVerifiedCache, type VerifiedShard } from './verifiedCache';
import { ProgressMeter, formatBytes, type ProgressListener } from './progressMeter';
import { describeJsonError, parseBoundedJson } from '../../../io/boundedJson';
import { ContainmentError, removeUnder } from '../../../containment/rootFs';

export type ShardStatus = 'verified' | 'cached' | 'missing' | 'size_mismatch' | 'sha_mismatch' | 'refused' | 'deleted_after_extract';

export interface ShardOutcome {
  file: string;
  status: ShardStatus;
  /** 'now' this run, 'before' in an earlier run, 'no' not extracted. */
  extracted: 'now' | 'before' | 'no';
  deleted: boolean;
  bytes: number;
  message: string | null;
}

export interface PrepareOptions {
  packageDir: string;
  /** Shards hashed at once (default min(4, cores)). */
  concurrency?: number;
  deleteShards?: boolean;
  onProgress?: ProgressListener;
  onMessage?: (line: string) => void;
  /** Free bytes at a folder (default fs.statfs); injectable for tests. */
  freeBytes?: (dir: string) => Promise<number>;
}

export interface PrepareResult {
  nVideosExpected: number;
  shards: ShardOutcome[];
  disk: { neededBytes: number; freeBytes: number | null; ok: boolean };
  count: VideoCount | null;
  errors: string[];
  warnings: string[];
  /** Shards present, verified and extracted, that --delete-shards would remove. */
  deletable: Array<{ file: string; bytes: number }>;
  ok: boolean;
}

/** Per extracted file, a filesystem block of slack on top of the bytes themselves. */
const BLOCK_SLACK = 4096;

export async function defaultFreeBytes(dir: string): Promise<number> {
  let d = path.resolve(dir);
  for (;;) {
    try {
      const s = await fs.statfs(d);
      return s.bavail * s.bsize;
    } catch (err) {
      const parent = path.dirname(d);
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || parent === d) throw err;
      d = parent;
    }
  }
}

async function readVideosManifest(layout: PackageLayout): Promise<VideosManifest> {
  let text: string;
  try {
    text = await fs.readFile(layout.videosManifest, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new InputError('missing: download the package first (seed §3)', { file: layout.videosManifest });
    throw err;
  }
  let json: unknown;
  try {
    json = parseBoundedJson(text);
  } catch (err) {
    throw new InputError(describeJsonError(err), { file: layout.videosManifest });
  }
  const parsed = videosManifestSchema.safeParse(json);
  if (!parsed.success) {
    throw new InputError(`${describeZodError(parsed.error)}; expected {"n_videos": N, "shards": [{"file", "sha256", "bytes"}]}`, {
      file: layout.videosManifest,
    });
  }
  return parsed.data;
}

export async function prepare(opts: PrepareOptions): Promise<PrepareResult> {
  const layout = new PackageLayout(opts.packageDir);
  const say = opts.onMessage ?? (() => undefined);
  const manifest = await readVideosManifest(layout);
  const cache = await loadVerifiedCache(layout);
  const errors: string[] = [];
  const warnings: string[] = [];
  const outcomes = new Map<string, ShardOutcome>();
  const good = new Map<string, VerifiedShard>();
  const toHash: Array<{ file: string; sha256: string; size: number; mtimeMs: number }> = [];

  for (const s of manifest.shards) {
    const abs = layout.shardFile(s.file);
    const base = { file: s.file, extracted: 'no' as const, deleted: false, bytes: s.bytes, message: null };
    let st;
    try {
      st = await fs.stat(abs);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      const c = cache.shards[s.file];
      if (c && c.deletedAt && c.extractedAt && c.sha256 === s.sha256) {
        outcomes.set(s.file, {
          ...base,
          status: 'deleted_after_extract',
          extracted: 'before',
          deleted: true,
          message: `verified and extracted on ${c.extractedAt}, deleted on ${c.deletedAt}`,
        });
      } else {
        const message = `${s.file}: missing from videos/ (download it again)`;
        errors.push(message);
        outcomes.set(s.file, { ...base, status: 'missing', message });
      }
      continue;
    }
    if (st.size !== s.bytes) {
      const message = `${s.file}: ${st.size} bytes but the manifest says ${s.bytes} (incomplete or altered download: fetch it again); not extracted`;
      errors.push(message);
      outcomes.set(s.file, { ...base, status: 'size_mismatch', message });
      continue;
    }
    const hit = cachedVerification(cache, s.file, st.size, st.mtimeMs, s.sha256);
    if (hit) {
      good.set(s.file, hit);
      outcomes.set(s.file, {
        ...base,
        status: 'cached',
        extracted: hit.extractedAt ? 'before' : 'no',
        message: `verified on ${hit.verifiedAt} (size and mtime unchanged): not hashed again`,
      });
    } else {
      toHash.push({ file: s.file, sha256: s.sha256, size: st.size, mtimeMs: st.mtimeMs });
    }
  }

  const hashBytes = toHash.reduce((a, t) => a + t.size, 0);
  if (toHash.length) {
    say(
      `verifying ${toHash.length} shard(s), ${formatBytes(hashBytes)}` +
        `${outcomes.size ? ` (${[...outcomes.values()].filter((o) => o.status === 'cached').length} already verified)` : ''}`,
    );
    const meter = new ProgressMeter(`sha256 ${toHash.length} shard(s)`, hashBytes, opts.onProgress);
    await mapBounded(toHash, Math.max(1, opts.concurrency ?? Math.min(4, os.availableParallelism())), async (t) => {
      const scan = await hashAndScanShard(layout.shardFile(t.file), (n) => meter.add(n));
      const base = { file: t.file, extracted: 'no' as const, deleted: false, bytes: t.size };
      if (scan.sha256 !== t.sha256) {
        const message =
          `${t.file}: sha256 mismatch (got ${scan.sha256}, manifest ${t.sha256}): ` +
          `the shard is damaged or tampered with; download it again. Not extracted.`;
        errors.push(message);
        outcomes.set(t.file, { ...base, status: 'sha_mismatch', message });
        return;
      }
      if (scan.problems.length) {
        const listed = scan.problems
          .slice(0, 5)
          .map((p) => `'${p.entry}' (${p.reason})`)
          .join(', ');
        const message =
          `${t.file}: refused entr${scan.problems.length === 1 ? 'y' : 'ies'} ${listed}` +
          `${scan.problems.length > 5 ? ` and ${scan.problems.length - 5} more` : ''}; nothing of this shard is extracted`;
        errors.push(message);
        outcomes.set(t.file, { ...base, status: 'refused', message });
        return;
      }
      const v: VerifiedShard = {
        file: t.file,
        size: t.size,
        mtimeMs: t.mtimeMs,
        sha256: t.sha256,
        entries: scan.entries,
        unpackedBytes: scan.unpackedBytes,
        verifiedAt: new Date().toISOString(),
        extractedAt: null,
        deletedAt: null,
      };
      cache.shards[t.file] = v;
      good.set(t.file, v);
      outcomes.set(t.file, { ...base, status: 'verified', message: null });
    });
    meter.finish();
    await saveVerifiedCache(layout, cache);
  }

  // Disk: everything still to extract must fit, with a block of slack per file.
  const pending = [...good.values()].filter((v) => !v.extractedAt);
  const neededBytes = pending.reduce((a, v) => a + v.unpackedBytes + v.entries * BLOCK_SLACK, 0);
  let freeBytes: number | null = null;
  let diskOk = true;
  if (pending.length) {
    freeBytes = await (opts.freeBytes ?? defaultFreeBytes)(layout.storeDir);
    if (freeBytes < neededBytes) {
      diskOk = false;
      errors.push(
        `not enough free disk under ${layout.storeDir}: extraction needs ${formatBytes(neededBytes)}, ${formatBytes(freeBytes)} free. ` +
          `Free some space (or move the package) and run prepare again; nothing was extracted.`,
      );
    }
  }

  if (diskOk && pending.length) {
    const total = pending.reduce((a, v) => a + v.size, 0);
    say(`extracting ${pending.length} shard(s) into ${layout.storeDir}`);
    const meter = new ProgressMeter(`extract ${pending.length} shard(s)`, total, opts.onProgress);
    for (const v of pending) {
      const o = outcomes.get(v.file)!;
      try {
        await extractShard(layout.shardFile(v.file), v.file, layout, (n) => meter.add(n));
        v.extractedAt = new Date().toISOString();
        o.extracted = 'now';
        await saveVerifiedCache(layout, cache);
      } catch (err) {
        // A link where our staging or store belongs is the root's problem, not this shard's: exit 2 naming it.
        if (err instanceof ContainmentError) throw err;
        const message = err instanceof RefusedEntryError ? err.message : `${v.file}: extraction failed: ${(err as Error).message}`;
        errors.push(message);
        o.message = message;
        o.status = err instanceof RefusedEntryError ? 'refused' : o.status;
        delete cache.shards[v.file];
        await saveVerifiedCache(layout, cache);
      }
    }
    meter.finish();
  }

  const deletable: PrepareResult['deletable'] = [];
  // Manifest order: outcomes were filled as parallel hashing finished.
  for (const s of manifest.shards) {
    const o = outcomes.get(s.file);
    if (!o) continue;
    const v = good.get(o.file);
    if (v && v.extractedAt && !o.deleted && (o.status === 'verified' || o.status === 'cached')) deletable.push({ file: o.file, bytes: o.bytes });
  }
  if (opts.deleteShards) {
    for (const d of deletable.splice(0)) {
      await removeUnder(layout.root, layout.shardFile(d.file));
      cache.shards[d.file].deletedAt = new Date().toISOString();
      outcomes.get(d.file)!.deleted = true;
    }
    await saveVerifiedCache(layout, cache);
  }

  const count = diskOk ? await countVideos(layout) : null;
  if (count) {
    for (const p of count.problems) warnings.push(`${p.file}:${p.line}: ${p.message}`);
    if (count.videos < manifest.n_videos) {
      errors.push(
        `${count.videos} videos in ${layout.storeDir}, the manifest says n_videos = ${manifest.n_videos}: ${manifest.n_videos - count.videos} missing`,
      );
    } else if (count.videos > manifest.n_videos) {
      warnings.push(`${count.videos} videos in ${layout.storeDir}, more than n_videos = ${manifest.n_videos} (left over from another package?)`);
    }
    if (count.incomplete.length)
      warnings.push(
        `${count.incomplete.length} folder(s) without video.mp4 or meta.json: ` +
          `${count.incomplete.slice(0, 5).join(', ')}${count.incomplete.length > 5 ? ', …' : ''}`,
      );
  }
  return {
    nVideosExpected: manifest.n_videos,
    shards: manifest.shards.map((s) => outcomes.get(s.file)!),
    disk: { neededBytes, freeBytes, ok: diskOk },
    count,
    errors,
    warnings,
    deletable,
    ok: errors.length === 0,
  };
}
