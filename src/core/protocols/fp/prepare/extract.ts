// Extraction of one verified shard into data/store/normalized with node-tar (the seed's
// `tar -xf "$t" -C data/store/normalized`), through a staging folder (issue 33): the shard is extracted into
// data/store/.staging/<shard>.<pid>/, every entry there is checked on disk (lstat: a plain file or folder, so
// nothing in it resolves outside), and only then moved into the store, folder by folder. A refused or failed
// shard leaves nothing in the store: its staging folder is deleted. The entry policy runs again as the extraction
// filter (the shard might have changed since it was hashed): the first refused entry aborts the shard with an
// error naming it. node-tar's own strict checks stay on as a third guard.
// Every write is under data/store/ through the containment module (no link on the way, `normalized` included).
import { createReadStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as tar from 'tar';
import { mkdirUnder, removeUnder, renameUnder, resolveInside } from '../../../containment/rootFs';
import { entryProblem, RefusedEntryError } from './entryPolicy';
import type { PackageLayout } from '../package/layout';

export interface ExtractResult {
  entries: number;
  bytes: number;
}

/** The first entry under `dir` that is not a plain file or folder (a link, a FIFO…), relative to `dir`. */
async function firstOddEntry(dir: string, rel = ''): Promise<{ entry: string; kind: string } | null> {
  for (const e of await fs.readdir(path.join(dir, rel), { withFileTypes: true })) {
    const p = path.join(rel, e.name);
    if (e.isDirectory()) {
      const odd = await firstOddEntry(dir, p);
      if (odd) return odd;
    } else if (!e.isFile()) return { entry: p, kind: e.isSymbolicLink() ? 'symbolic link' : 'not a file or folder' };
  }
  return null;
}

/** Moves `from` to `to` under `root`: whole when `to` is absent, else entry by entry (a file replaces its old copy). */
async function moveInto(root: string, from: string, to: string): Promise<void> {
  const there = await resolveInside(root, to);
  if (!there.leaf) return renameUnder(root, from, to);
  if (!there.leaf.isDirectory()) throw new Error(`${to} is in the store already and is not a folder`);
  for (const e of await fs.readdir(from, { withFileTypes: true })) {
    if (e.isDirectory()) await moveInto(root, path.join(from, e.name), path.join(to, e.name));
    else await renameUnder(root, path.join(from, e.name), path.join(to, e.name));
  }
}

async function unpackInto(staging: string, shardPath: string, shardName: string, onBytes?: (n: number) => void): Promise<ExtractResult> {
  let entries = 0;
  let bytes = 0;
  let refused: RefusedEntryError | null = null;
  const unpack = new tar.Unpack({
    cwd: staging,
    strict: true,
    preserveOwner: false,
    filter: (p, entry) => {
      if (refused) return false;
      const e = entry as tar.ReadEntry;
      const why = entryProblem(p, e.type, e.linkpath);
      if (why) {
        refused = new RefusedEntryError(shardName, p, why);
        unpack.abort(refused);
        return false;
      }
      entries++;
      return true;
    },
  });
  const input = createReadStream(shardPath, { highWaterMark: 1 << 20 });
  input.on('data', (c) => {
    bytes += c.length;
    onBytes?.(c.length);
  });
  await new Promise<void>((resolve, reject) => {
    unpack.on('error', (err: Error) => reject(refused ?? err));
    unpack.on('close', () => (refused ? reject(refused) : resolve()));
    input.on('error', reject);
    input.pipe(unpack);
  });
  return { entries, bytes };
}

/** Where a shard lands: the store, and its staging folder (PackageLayout's, beside the store). */
export type ExtractLayout = Pick<PackageLayout, 'storeDir' | 'shardStaging'>;

export async function extractShard(shardPath: string, shardName: string, layout: ExtractLayout, onBytes?: (n: number) => void): Promise<ExtractResult> {
  const root = path.dirname(layout.storeDir);
  const store = await mkdirUnder(root, layout.storeDir);
  const staging = await mkdirUnder(root, layout.shardStaging(path.basename(shardName)));
  try {
    await removeUnder(root, staging, { recursive: true }); // a crashed earlier attempt's leftovers
    await mkdirUnder(root, staging);
    const result = await unpackInto(staging, shardPath, shardName, onBytes);
    const odd = await firstOddEntry(staging);
    if (odd) throw new RefusedEntryError(shardName, odd.entry, `${odd.kind} on disk after extraction: a shard holds only files and folders (SPEC §1)`);
    for (const e of await fs.readdir(staging)) await moveInto(root, path.join(staging, e), path.join(store, e));
    return result;
  } finally {
    await removeUnder(root, staging, { recursive: true });
  }
}
