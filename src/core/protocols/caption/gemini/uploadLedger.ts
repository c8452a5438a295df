// The files this rank has uploaded to Gemini and not yet deleted, one small file each under
// `<rank state>/gemini-uploads/` — written before the upload starts (the backend names each upload itself, so the
// name is known first) and removed once files.delete succeeded. A crash leaves entries behind; the next run lists
// them by name and deletes those files before it uploads anything (issue 35: a crash's leftovers are deleted).
import { parseBoundedJson } from '../../../io/boundedJson';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../../../runner/atomicFile';
import { removeUnder } from '../../../containment/rootFs';

export interface LedgerEntry {
  /** `files/<id>`. */
  name: string;
  /** `<stem>/clip_NNNN`. */
  clip: string;
  at: string;
}

export class UploadLedger {
  constructor(
    /** The videos root: the ledger is written under it through the containment module. */
    readonly root: string,
    readonly dir: string,
  ) {}

  private file(name: string): string {
    return path.join(this.dir, `${name.replace(/^files\//, '')}.json`);
  }

  async add(name: string, clip: string): Promise<void> {
    await writeFileAtomic(this.root, this.file(name), JSON.stringify({ name, clip, at: new Date().toISOString() } satisfies LedgerEntry) + '\n');
  }

  async remove(name: string): Promise<void> {
    await removeUnder(this.root, this.file(name));
  }

  /** Every entry left (a torn or foreign file is skipped: it names no upload). */
  async list(): Promise<LedgerEntry[]> {
    const names = await fs.readdir(this.dir).catch(() => [] as string[]);
    const out: LedgerEntry[] = [];
    for (const n of names.filter((x) => x.endsWith('.json')).sort()) {
      try {
        const e = parseBoundedJson(await fs.readFile(path.join(this.dir, n), 'utf8')) as LedgerEntry;
        if (typeof e.name === 'string' && e.name.startsWith('files/')) out.push(e);
      } catch {
        // not ours, or torn before its rename: no upload started under it
      }
    }
    return out;
  }
}
