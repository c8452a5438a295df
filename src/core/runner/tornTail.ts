// A torn last line of an append-only JSONL file (the process died inside a write, or the disk kept
// only part of it) is moved, as it was, to `<file>.torn` (appended) and cut from the file, so the
// file ends with a whole line again and resume appends after it (SPEC §4).
import * as path from 'node:path';
import { promises as fs } from 'node:fs';
import { parseBoundedJson } from '../io/boundedJson';
import { openAppendUnder, openReadWriteUnder } from '../containment/rootFs';

const NL = 0x0a;
/** Lines of our records stay well under this (1024 indices + 1024 timestamps ≈ 30 kB). */
const TAIL_BYTES = 1 << 20;

export interface SetAside {
  file: string;
  sideFile: string;
  bytes: number;
  reason: string;
}

async function readTail(fh: fs.FileHandle, size: number, max = TAIL_BYTES): Promise<{ buf: Buffer; start: number }> {
  const start = Math.max(0, size - max);
  const buf = Buffer.alloc(size - start);
  let off = 0;
  while (off < buf.length) {
    const { bytesRead } = await fh.read(buf, off, buf.length - off, start + off);
    if (bytesRead === 0) break;
    off += bytesRead;
  }
  return { buf: buf.subarray(0, off), start };
}

/**
 * Moves `bytes` to the side file (appended, fsynced) and truncates `file` at byte `keep`, both through the containment
 * module with the file's own folder as the root (neither may be a link or have a second name).
 */
export async function moveTail(file: string, sideFile: string, keep: number, bytes: Buffer): Promise<void> {
  const side = await openAppendUnder(path.dirname(file), sideFile);
  try {
    await side.write(bytes);
    // A side-file entry ends with a newline so two set-aside tails never run together.
    if (bytes.length && bytes[bytes.length - 1] !== NL) await side.write(Buffer.from('\n'));
    await side.sync();
  } finally {
    await side.close();
  }
  const cut = await openReadWriteUnder(path.dirname(file), file);
  await cut.truncate(keep).finally(() => cut.close());
}

/**
 * Checks the end of a JSONL file: a last line without its newline, or a last line that is not JSON,
 * is torn. Returns what was set aside, or null when the file ends with a whole line (or is missing).
 */
export async function setAsideTornJsonlTail(file: string, sideFile = `${file}.torn`): Promise<SetAside | null> {
  let fh: fs.FileHandle;
  try {
    fh = await fs.open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  let cut = -1;
  let reason = '';
  let tail: Buffer = Buffer.alloc(0);
  try {
    const { size } = await fh.stat();
    if (size === 0) return null;
    // Most files end well: look at the last 64 kB first, the whole 1 MB only when a line is longer.
    let { buf, start } = await readTail(fh, size, 64 * 1024);
    if (start > 0 && buf.lastIndexOf(NL, buf.length - 2) < 0) ({ buf, start } = await readTail(fh, size));
    if (buf[buf.length - 1] !== NL) {
      const lastNl = buf.lastIndexOf(NL);
      if (lastNl < 0 && start > 0) throw new Error(`${file}: last line longer than ${TAIL_BYTES} bytes; cannot check it`);
      cut = start + lastNl + 1;
      reason = 'the file does not end with a newline';
    } else {
      const prevNl = buf.lastIndexOf(NL, buf.length - 2);
      const line = buf.subarray(prevNl + 1, buf.length - 1).toString('utf8');
      if (line.trim() !== '') {
        try {
          parseBoundedJson(line);
        } catch {
          cut = start + prevNl + 1;
          reason = 'its last line is not valid JSON';
        }
      }
    }
    if (cut >= 0) tail = Buffer.from(buf.subarray(cut - start));
  } finally {
    await fh.close();
  }
  if (cut < 0) return null;
  await moveTail(file, sideFile, cut, tail);
  return { file, sideFile, bytes: tail.length, reason };
}

/** The last whole lines of a file (within its last `maxBytes`), for reconciling raw records with CSV rows. */
export async function readLastLines(file: string, maxBytes = 256 * 1024): Promise<string[]> {
  const fh = await fs.open(file, 'r');
  try {
    const { size } = await fh.stat();
    const { buf, start } = await readTail(fh, size, maxBytes);
    let text = buf.toString('utf8');
    if (start > 0) text = text.slice(text.indexOf('\n') + 1); // the first line may be cut
    return text.split('\n').filter((l) => l.trim() !== '');
  } finally {
    await fh.close();
  }
}
