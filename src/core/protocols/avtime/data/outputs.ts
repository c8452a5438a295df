// Where the data stages write (SPEC-AVTIME-DATA "Common rules"): an existing non-empty output is refused
// (artifacts are immutable), and outputs land whole: written beside their place, fsynced, then renamed. An output's
// folder (the one the user named it in) is its root: every write goes through the containment module under it.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { mkdirUnder, openFreshUnder, removeEmptyDirUnder, removeUnder, renameUnder } from '../../../containment/rootFs';
import { ContainmentError } from '../../../containment/containmentError';
import { InputError } from '../../../errors';
import { sha256Text } from '../stages/files';
import type { FileOutputs, SplitOutputs } from './layout';

/** Refuses `target` when it is a link (to anything, or to nothing yet: refused before any input is read, so no
 * output lands while another is refused at its rename), a non-empty file or a non-empty folder (an empty one may be
 * replaced). */
export async function refuseNonEmpty(target: string, flag: string): Promise<void> {
  if ((await fs.lstat(target).catch(() => null))?.isSymbolicLink()) throw new ContainmentError(target, 'is a symbolic link');
  const st = await fs.stat(target).catch(() => null);
  if (!st) return;
  const empty = st.isDirectory() ? (await fs.readdir(target)).length === 0 : st.isFile() && st.size === 0;
  if (!empty) throw new InputError(`${flag} ${target} already exists and is not empty: outputs are never overwritten; choose a new path`);
}

async function writeSynced(root: string, file: string, data: string | Buffer): Promise<void> {
  const fh = await openFreshUnder(root, file);
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** The files of an output folder, written in a staging folder beside it and renamed into place in one step. */
export async function publishFolder(out: SplitOutputs, files: ReadonlyArray<{ name: string; data: string | Buffer }>): Promise<void> {
  const { root, staging, outputRoot: dir } = out;
  await removeUnder(root, staging, { recursive: true });
  await mkdirUnder(root, staging);
  try {
    for (const f of files) await writeSynced(root, path.join(staging, f.name), f.data);
    await removeEmptyDirUnder(root, dir);
    await renameUnder(root, staging, dir);
  } catch (err) {
    await removeUnder(root, staging, { recursive: true });
    throw err;
  }
}

/** A verb's single files (`out`) with their `data`: each staged beside its place, renamed only once every one is written. */
export async function publishFiles<N extends string>(out: FileOutputs<N>, data: Readonly<Record<N, string | Buffer>>): Promise<void> {
  const staged: { root: string; tmp: string; file: string }[] = [];
  try {
    for (const name of Object.keys(out.file) as N[]) {
      const file = out.file[name];
      const root = path.dirname(file);
      const tmp = out.staging[name];
      await removeUnder(root, tmp);
      await writeSynced(root, tmp, data[name]);
      staged.push({ root, tmp, file });
    }
    for (const s of staged) await renameUnder(s.root, s.tmp, s.file);
  } catch (err) {
    await Promise.all(staged.map((s) => removeUnder(s.root, s.tmp)));
    throw err;
  }
}

/** `{path, sha256}` of a text or bytes about to be written (the report names what it describes). */
export const fileRecord = (p: string, data: string | Buffer) => ({ path: p, sha256: sha256Text(data) });

/** Lines (without their "\n") as one JSONL buffer, each encoded straight into place: no joined copy of the whole text. */
export function jsonlBytes(lines: readonly string[]): Buffer {
  let size = 0;
  for (const l of lines) size += Buffer.byteLength(l, 'utf8') + 1;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const l of lines) {
    at += out.write(l, at, 'utf8');
    out[at++] = 0x0a;
  }
  return out;
}
