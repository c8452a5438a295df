// The end of a server log, read from a given offset so one incarnation's crash is not blamed on
// text an earlier incarnation wrote to the same (appended) file.
import * as fs from 'node:fs';

export function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

export function readTail(file: string, fromOffset = 0, maxBytes = 64 * 1024): string {
  let fd: number | null = null;
  try {
    fd = fs.openSync(file, 'r');
    const size = fs.fstatSync(fd).size;
    const start = Math.max(fromOffset, size - maxBytes);
    const buf = Buffer.alloc(Math.max(0, size - start));
    fs.readSync(fd, buf, 0, buf.length, start);
    return buf.toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

/** The last `n` non-empty lines, for error messages. */
export function lastLines(text: string, n: number): string {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(-n)
    .join('\n');
}
