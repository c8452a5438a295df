// What an e2e script of ours sets up around its checks, and tears down after them: its output folder (screenshots,
// logs) emptied, a work folder under the system's temp, the packaged VSIX installed into a code-server of its own on
// a free port (codeServer.ts), Chromium on a folder; at the end the browser closed, code-server's process group
// stopped and the work folder removed (kept and named with E2E_KEEP).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { installExtension, makeDirs, REPO, startCodeServer, type CodeServerDirs, type RunningCodeServer } from './codeServer';
import { launchBrowser, Workbench } from './workbench';

/** The VSIX `npm run package:vsix` makes. */
export const VSIX = path.join(REPO, 'fpsweep-linux-x64.vsix');

/** Throws unless the VSIX is there (the scripts check it before their slow set-up). */
export function requireVsix(): void {
  if (!fs.existsSync(VSIX)) throw new Error(`${VSIX} is missing: npm run package:vsix`);
}

export class E2eSession {
  /** The script's own folder under the system's temp (fpsweep-<name>-*). */
  readonly work: string;
  private readonly dirs: CodeServerDirs;
  server: RunningCodeServer | undefined;
  browser: Browser | undefined;

  /** `out` emptied, a fresh work folder. */
  constructor(
    readonly out: string,
    name: string,
  ) {
    fs.rmSync(out, { recursive: true, force: true });
    fs.mkdirSync(out, { recursive: true });
    this.work = fs.mkdtempSync(path.join(os.tmpdir(), `fpsweep-${name}-`));
    this.dirs = makeDirs(path.join(this.work, 'code-server'));
  }

  /** Installs the VSIX into this session's code-server; what code-server said, for the log. */
  async install(): Promise<string> {
    requireVsix();
    return installExtension(this.dirs, VSIX);
  }

  /** Starts code-server on a free port of 127.0.0.1, its log in `out`/code-server.log. */
  async start(): Promise<RunningCodeServer> {
    this.server = await startCodeServer(this.dirs, path.join(this.out, 'code-server.log'));
    return this.server;
  }

  /**
   * A page of `viewport` (Chromium launched on the first) on `folder` in code-server, the workbench ready to drive;
   * `onPage` sees the page before it loads (dialog and console listeners).
   */
  async openFolder(folder: string, viewport: { width: number; height: number }, onPage?: (page: Page) => void): Promise<Workbench> {
    if (!this.server) throw new Error('code-server is not started');
    this.browser ??= await launchBrowser();
    const page = await this.browser.newPage({ viewport });
    onPage?.(page);
    const wb = new Workbench(page, this.out);
    await wb.open(`${this.server.url}/?folder=${encodeURIComponent(folder)}`);
    return wb;
  }

  /** The browser closed, code-server's process group stopped, the work folder removed unless E2E_KEEP is set. */
  async close(log: (msg: string) => void): Promise<void> {
    await this.browser?.close().catch(() => undefined);
    await this.server?.stop();
    if (process.env.E2E_KEEP) log(`kept ${this.work}`);
    else fs.rmSync(this.work, { recursive: true, force: true, maxRetries: 5, retryDelay: 500 }); // a stopping worker may still write
  }
}
