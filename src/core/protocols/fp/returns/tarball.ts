// The returns tarball (seed §8, SPEC §7): fp_returns_<hostname>_<YYYYMMDD>.tar.gz of exactly
// `results/conditions_results.csv results/p1_raw logs data/logs` (paths relative to the package
// root, as the seed's `tar -czf` run from the root makes them) and fp_returns.sha256 in sha256sum
// format. Both are written to a temporary name and renamed, so a crash never leaves a torn file
// under the final name. The tarball is streamed (tar → gzip → hash + file), never held in memory. The tar stream is
// packed from our own descriptors (./packOwn.ts): nothing is reopened by path after it was checked (issue 42).
import { writeFileAtomic, writeStreamAtomic } from '../../../runner/atomicFile';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { InputError } from '../../../errors';
import { PackageLayout } from '../package/layout';
import { isPlainName } from '../../../package/names';
import { ProgressMeter, type ProgressListener } from '../prepare/progressMeter';
import { ContainmentError, resolveInside } from '../../../containment/rootFs';
import { packOwn } from './packOwn';

/** What goes into the tarball, in this order (the seed's command line). */
export const RETURNS_PATHS = ['results/conditions_results.csv', 'results/p1_raw', 'logs', 'data/logs'] as const;

export interface ReturnsNames {
  tarball: string;
  /** The name the .sha256 gets on the hub: returns/<this>. */
  hubSha256: string;
  stem: string;
}

/** `date +%Y%m%d` in local time, as the seed's shell command gives it. */
export function yyyymmdd(d: Date): string {
  return `${d.getFullYear()}${String(d.getMonth() + 1).padStart(2, '0')}${String(d.getDate()).padStart(2, '0')}`;
}

export function returnsNames(hostname: string, date: Date): ReturnsNames {
  if (!isPlainName(hostname) || /\s/.test(hostname)) {
    throw new InputError(`hostname '${hostname}' cannot be part of a file name`);
  }
  const stem = `fp_returns_${hostname}_${yyyymmdd(date)}`;
  return { stem, tarball: `${stem}.tar.gz`, hubSha256: `${stem}.sha256` };
}

/** One line of `sha256sum` output: hex, two spaces (text mode), file name, newline. */
export function sha256sumLine(hex: string, fileName: string): string {
  return `${hex}  ${fileName}\n`;
}

export interface TarballResult {
  tarballPath: string;
  sha256Path: string;
  names: ReturnsNames;
  sha256: string;
  /** Size of the .tar.gz on disk. */
  bytes: number;
  /** Uncompressed bytes of the files packed (for the progress total). */
  inputBytes: number;
  files: number;
}

export interface TarballOptions {
  hostname?: string;
  date?: Date;
  onProgress?: ProgressListener;
}

const block = (n: number) => Math.ceil(n / 512) * 512;

/**
 * Files under a path and the size of their tar stream (a 512-byte header each, bodies padded). What leaves the host is
 * read through the containment rules (issue 42): a link anywhere in it, or a file with a second name (a hard link),
 * is refused with its path, never packed with its target.
 */
async function walkSize(abs: string, rel: string): Promise<{ bytes: number; files: number; tarBytes: number }> {
  const st = await fs.lstat(abs);
  if (st.isSymbolicLink()) throw new ContainmentError(abs, 'is a symbolic link: the returns never pack a link or what it points at');
  if (!st.isDirectory() && !st.isFile()) throw new ContainmentError(abs, 'is not a plain file or folder: not packed');
  if (st.isFile() && st.nlink > 1) throw new ContainmentError(abs, 'has another name (a hard link): not packed');
  // Paths of 100 bytes or more get an extra pax header; counted roughly (progress only).
  const header = rel.length + 1 >= 100 ? 1536 : 512;
  if (!st.isDirectory()) {
    const size = st.isFile() ? st.size : 0;
    return { bytes: size, files: 1, tarBytes: header + block(size) };
  }
  let bytes = 0;
  let files = 0;
  let tarBytes = header;
  for (const name of await fs.readdir(abs)) {
    const sub = await walkSize(path.join(abs, name), `${rel}/${name}`);
    bytes += sub.bytes;
    files += sub.files;
    tarBytes += sub.tarBytes;
  }
  return { bytes, files, tarBytes };
}

/**
 * Writes the tarball and its .sha256 into the package root. A missing input path is an InputError
 * naming it (the seed's `tar` would fail the same way): the returns are never silently partial.
 */
export async function makeReturnsTarball(packageDir: string | PackageLayout, opts: TarballOptions = {}): Promise<TarballResult> {
  const layout = typeof packageDir === 'string' ? new PackageLayout(packageDir) : packageDir;
  const names = returnsNames(opts.hostname ?? os.hostname(), opts.date ?? new Date());
  const missing: string[] = [];
  let inputBytes = 0;
  let files = 0;
  let tarBytes = 1024; // two zero blocks end the archive
  for (const rel of RETURNS_PATHS) {
    try {
      await resolveInside(layout.root, path.join(layout.root, rel)); // no link on the way down from the root
      const s = await walkSize(path.join(layout.root, rel), rel);
      inputBytes += s.bytes;
      files += s.files;
      tarBytes += s.tarBytes;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') missing.push(rel);
      else throw err;
    }
  }
  if (missing.length) {
    throw new InputError(
      `cannot make the returns: ${missing.join(', ')} missing under ${layout.root} (run the sweep first; the tarball holds exactly ${RETURNS_PATHS.join(' ')})`,
    );
  }

  const tarballPath = layout.returnsTarball(names.tarball);
  const sha256Path = layout.returnsSha256;
  // Progress counts the uncompressed tar stream against its expected size.
  const meter = new ProgressMeter(`packing ${names.tarball}`, tarBytes, opts.onProgress);
  const hash = createHash('sha256');
  let bytes = 0;
  const countIn = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      meter.add(chunk.length);
      cb(null, chunk);
    },
  });
  const hashOut = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      hash.update(chunk);
      bytes += chunk.length;
      cb(null, chunk);
    },
  });
  // Checked above, and again on each descriptor that is read: anything turned into a link since is refused, never followed.
  const pack = packOwn(layout.root, RETURNS_PATHS);
  // Into a temp of an unpredictable name beside the tarball (made O_EXCL: nothing can be planted at it beforehand),
  // renamed in whole; removed when anything fails.
  await writeStreamAtomic(layout.root, tarballPath, async (out) => {
    await pipeline(pack, countIn, createGzip(), hashOut, out);
    meter.finish();
  });
  const hex = hash.digest('hex');
  await writeFileAtomic(layout.root, sha256Path, sha256sumLine(hex, names.tarball));
  return { tarballPath, sha256Path, names, sha256: hex, bytes, inputBytes, files };
}
