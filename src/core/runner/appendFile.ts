// Append-only files written one whole line per write(2): with O_APPEND and a single write of the
// complete line, a crash leaves the line whole or absent at the end of the file (a torn tail is
// only possible if the process dies inside that one write; resume sets such a tail aside).
// The file is under a run's root and opened through the containment module: never through a link, never a file
// with a second name. Logs and records are where a server's or a hub's echo of a request would land: every line
// passes the redactor (security/secrets.ts).
import type { promises as fs } from 'node:fs';
import { openAppendUnder } from '../containment/rootFs';
import { redactSecrets } from '../security/secrets';

export class AppendFile {
  private handle: fs.FileHandle | null = null;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    readonly root: string,
    readonly file: string,
  ) {}

  private async open(): Promise<fs.FileHandle> {
    this.handle ??= await openAppendUnder(this.root, this.file);
    return this.handle;
  }

  /** Appends `text` (must end with a newline) in one write; `sync` waits for fsync. Calls are serialized. */
  append(text: string, sync = false): Promise<void> {
    if (!text.endsWith('\n')) throw new Error(`AppendFile(${this.file}): a line must end with a newline`);
    const p = this.chain.then(async () => {
      const h = await this.open();
      const buf = Buffer.from(redactSecrets(text), 'utf8');
      let off = 0;
      // Regular files take the whole buffer in one write; the loop only guards the theoretical short write.
      while (off < buf.length) {
        const { bytesWritten } = await h.write(buf, off, buf.length - off);
        off += bytesWritten;
      }
      if (sync) await h.sync();
    });
    this.chain = p.catch(() => undefined);
    return p;
  }

  async close(): Promise<void> {
    await this.chain;
    const h = this.handle;
    this.handle = null;
    if (h) await h.close();
  }
}

/** A set of AppendFiles by path, opened on first use (raw files are one per condition × benchmark). */
export class AppendFiles {
  private readonly files = new Map<string, AppendFile>();
  constructor(readonly root: string) {}
  get(file: string): AppendFile {
    let f = this.files.get(file);
    if (!f) this.files.set(file, (f = new AppendFile(this.root, file)));
    return f;
  }
  async closeAll(): Promise<void> {
    await Promise.all([...this.files.values()].map((f) => f.close()));
    this.files.clear();
  }
}
