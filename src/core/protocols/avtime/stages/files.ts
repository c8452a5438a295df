// Small file helpers the AVTime stages share: sha256 of a file or text, and (the engine's, re-exported so the
// stages have their file helpers in one import) a whole-file write that lands all at once, so a crash or a
// refusal never leaves half an artifact.
import { createHash } from 'node:crypto';
import { createReadStream, promises as fs } from 'node:fs';

export async function sha256File(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}

export function sha256Text(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

export { writeFileAtomic } from '../../../runner/atomicFile';

export function jsonlText(rows: readonly unknown[]): string {
  return rows.map((r) => JSON.stringify(r) + '\n').join('');
}

export async function exists(p: string): Promise<boolean> {
  return fs.stat(p).then(
    () => true,
    () => false,
  );
}
