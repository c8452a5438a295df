// Extraction of one verified shard into data/store/normalized with node-tar (the seed's
// `tar -xf "$t" -C data/store/normalized`). The entry policy runs again as the extraction filter
// (the shard might have changed since it was hashed): the first refused entry aborts the shard
// with an error naming it. node-tar's own strict checks stay on as a second guard.
import { createReadStream, promises as fs } from 'node:fs';
import * as tar from 'tar';
import { entryProblem, RefusedEntryError } from './entryPolicy';

export interface ExtractResult {
  entries: number;
  bytes: number;
}

export async function extractShard(shardPath: string, shardName: string, storeDir: string, onBytes?: (n: number) => void): Promise<ExtractResult> {
  await fs.mkdir(storeDir, { recursive: true });
  let entries = 0;
  let bytes = 0;
  let refused: RefusedEntryError | null = null;
  const unpack = new tar.Unpack({
    cwd: storeDir,
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
