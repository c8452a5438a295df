// A run's status file, whatever its schema: rewritten atomically (atomicFile.ts), so a reader never sees
// half a file; read back through the same schema, so a file we do not understand reads as none.
import { promises as fs } from 'node:fs';
import { writeFileAtomic } from './atomicFile';
import { redactSecrets } from '../security/secrets';
import type { z } from 'zod';
import { parseBoundedJson } from '../io/boundedJson';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a schema may default or transform on input
export type StatusSchema<S> = z.ZodType<S, z.ZodTypeDef, any>;

/** Checks `value` with `schema` and replaces `file` (under `root`) with it in one rename. */
export async function writeStatusAtomic<S>(root: string, file: string, schema: StatusSchema<S>, value: S): Promise<void> {
  // A status carries messages (a server's error, a hub's answer): the redactor sees it before the disk does.
  await writeFileAtomic(root, file, redactSecrets(JSON.stringify(schema.parse(value), null, 1)) + '\n');
}

/** The last status written to `file`, or null (none yet, or not one `schema` accepts). */
export async function readStatusFile<S>(file: string, schema: StatusSchema<S>): Promise<S | null> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed = schema.safeParse(parseBoundedJson(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
