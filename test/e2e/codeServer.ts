// code-server 4.100.3 (VS Code 1.100.3 on Node 20), installed by scripts/e2e-setup.sh under
// .tmp/code-server: install a VSIX into a throwaway extensions dir and serve a folder on 127.0.0.1.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '../helpers/waitFor';

const run = promisify(execFile);

export const REPO = path.resolve(__dirname, '..', '..');
export const CODE_SERVER_ENTRY = path.join(REPO, '.tmp', 'code-server', 'node_modules', 'code-server', 'out', 'node', 'entry.js');

export interface CodeServerDirs {
  userDataDir: string;
  extensionsDir: string;
  configFile: string;
}

export function makeDirs(root: string): CodeServerDirs {
  const dirs = {
    userDataDir: path.join(root, 'user-data'),
    extensionsDir: path.join(root, 'extensions'),
    configFile: path.join(root, 'config.yaml'),
  };
  fs.mkdirSync(path.join(dirs.userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(dirs.extensionsDir, { recursive: true });
  // Our own config file, so code-server never writes ~/.config/code-server.
  fs.writeFileSync(dirs.configFile, 'auth: none\ncert: false\n');
  // A quiet workbench: no welcome page, no trust prompt, no update or telemetry calls.
  fs.writeFileSync(
    path.join(dirs.userDataDir, 'User', 'settings.json'),
    JSON.stringify(
      {
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'workbench.enableExperiments': false,
        'security.workspace.trust.enabled': false,
        'extensions.autoUpdate': false,
        'extensions.autoCheckUpdates': false,
        'extensions.ignoreRecommendations': true,
        'telemetry.telemetryLevel': 'off',
        'update.mode': 'none',
        'window.restoreWindows': 'none',
        'chat.commandCenter.enabled': false,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
      },
      null,
      2,
    ),
  );
  return dirs;
}

function baseArgs(d: CodeServerDirs): string[] {
  return ['--config', d.configFile, '--user-data-dir', d.userDataDir, '--extensions-dir', d.extensionsDir];
}

export async function installExtension(d: CodeServerDirs, vsix: string): Promise<string> {
  if (!fs.existsSync(CODE_SERVER_ENTRY)) throw new Error(`code-server is not installed (${CODE_SERVER_ENTRY}): run scripts/e2e-setup.sh`);
  const { stdout, stderr } = await run(process.execPath, [CODE_SERVER_ENTRY, ...baseArgs(d), '--force', '--install-extension', vsix], {
    timeout: 120_000,
  });
  const out = stdout + stderr;
  if (!/successfully installed/i.test(out)) throw new Error(`installing ${vsix} failed:\n${out}`);
  return out.trim();
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface RunningCodeServer {
  url: string;
  process: ChildProcess;
  log: string;
  stop(): Promise<void>;
}

export async function startCodeServer(d: CodeServerDirs, logFile: string, env: NodeJS.ProcessEnv = process.env): Promise<RunningCodeServer> {
  const port = await freePort();
  const log = fs.openSync(logFile, 'a');
  const child = spawn(
    process.execPath,
    [
      CODE_SERVER_ENTRY,
      ...baseArgs(d),
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--ignore-last-opened',
    ],
    { stdio: ['ignore', log, log], env, detached: true },
  );
  fs.closeSync(log);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`code-server exited (${child.exitCode}); see ${logFile}`);
      return fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false, // not listening yet
      );
    },
    60_000,
    `code-server did not answer on ${url}; see ${logFile}`,
    { pollMs: 300 },
  );
  return {
    url,
    process: child,
    log: logFile,
    async stop() {
      if (child.exitCode !== null || child.pid === undefined) return;
      // Its own process group (detached): the extension host and its children go with it.
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        return;
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          try {
            process.kill(-child.pid!, 'SIGKILL');
          } catch {
            /* gone */
          }
          resolve();
        }, 5000);
        child.once('exit', () => {
          clearTimeout(t);
          resolve();
        });
      });
    },
  };
}
