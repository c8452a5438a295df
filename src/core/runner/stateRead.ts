// Reading a run's per-item state files (a cut video's state, a captioned video's outcome) for a plan or a status.
// "No file" is the only absence: any other error (too many open files, no permission) is thrown, because a plan
// that took an unreadable state for none would redo finished work, and a status would call it pending. Reads of many
// such files go through a bounded pool: 50,000 at once run out of file descriptors (EMFILE) on any host.
import { promises as fs } from 'node:fs';

/**
 * How many per-item file calls (state reads, stats of a root's entries) a plan or a status makes at once: enough to
 * keep the disk busy; 50,000 begun together run out of descriptors, or hold 50,000 promises and cost more in GC than I/O.
 */
export const FILE_CALLS_AT_ONCE = 64;

/** The file's text, or null when it does not exist; any other error is thrown, naming the file. */
export async function readTextIfExists(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    // Node's message for a read names no file: say which one, keep the code.
    throw Object.assign(new Error(`cannot read ${file}: ${(err as Error).message}`), { code });
  }
}
