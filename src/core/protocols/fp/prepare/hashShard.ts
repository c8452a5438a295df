// One streaming read of a shard gives both its sha256 and a scan of its tar headers (entry count,
// unpacked bytes, refused entries), so the disk check and the entry policy need no second pass.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { once } from 'node:events';
import * as tar from 'tar';
import { entryProblem } from './entryPolicy';

export interface ShardScan {
  sha256: string;
  bytes: number;
  entries: number;
  /** Sum of the sizes of the files inside (what extraction writes). */
  unpackedBytes: number;
  /** Refused entries (policy) and tar format errors; empty for a good shard. */
  problems: Array<{ entry: string; reason: string }>;
}

export async function hashAndScanShard(file: string, onBytes?: (n: number) => void): Promise<ShardScan> {
  const hash = createHash('sha256');
  const problems: ShardScan['problems'] = [];
  let entries = 0;
  let unpackedBytes = 0;
  let bytes = 0;
  const parser = new tar.Parser({
    strict: true,
    onReadEntry: (e) => {
      entries++;
      if (e.type === 'File' || e.type === 'OldFile' || e.type === 'ContiguousFile') unpackedBytes += e.size ?? 0;
      const why = entryProblem(e.path, e.type, e.linkpath);
      if (why) problems.push({ entry: e.path, reason: why });
      e.resume();
    },
  });
  let formatError: Error | null = null;
  parser.on('error', (err: Error) => {
    formatError ??= err;
  });
  const done = once(parser, 'end').catch(() => undefined);
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    const b = chunk as Buffer;
    hash.update(b);
    bytes += b.length;
    onBytes?.(b.length);
    // After a format error the parser is finished; keep hashing so the sha256 is still reported.
    if (!formatError && !parser.write(b)) await Promise.race([once(parser, 'drain'), once(parser, 'error')]);
  }
  if (!formatError) {
    parser.end();
    await done;
  }
  if (formatError) problems.push({ entry: '(archive)', reason: `not a valid tar archive: ${(formatError as Error).message}` });
  return { sha256: hash.digest('hex'), bytes, entries, unpackedBytes, problems };
}
