// Temporary folders made by the tests of prepare, doctor, report and returns, removed after each file.
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const made: string[] = [];

export async function tempDir(prefix: string): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  made.push(d);
  return d;
}

export async function removeTempDirs(): Promise<void> {
  for (const d of made.splice(0)) await fs.rm(d, { recursive: true, force: true });
}
