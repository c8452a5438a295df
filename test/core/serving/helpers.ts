// Shared by the serving tests: a fresh stand-in bundle, real JPEGs, a stand-in process on 127.0.0.1.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as net from 'node:net';
import type { ResultPromise } from 'execa';
import sharp from 'sharp';
import { checkHealth } from '../../../src/core/serving/health';
import { waitFor } from '../../helpers/waitFor';

export const REPO = path.resolve(__dirname, '../../..');
export const FAKE_VLLM = path.join(REPO, 'bin', 'fake-vllm');

let built = false;
/** Bundles the stand-in once (as esbuild.js does), so bin/fake-vllm starts fast and never runs a stale build. */
export async function buildStandin(): Promise<void> {
  if (built) return;
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [path.join(REPO, 'src/standins/vllm/main.ts')],
    outfile: path.join(REPO, 'dist/standin-vllm.js'),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: ['sharp'],
    banner: { js: '#!/usr/bin/env node' },
    logLevel: 'warning',
  });
  built = true;
}

export function tmpDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `fpsweep-${prefix}-`));
}

/** A real baseline JPEG whose pixels depend on `seed` (so different seeds are different images). */
export async function makeJpeg(width: number, height: number, seed: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: (seed * 37) % 256, g: (seed * 91) % 256, b: (seed * 53) % 256 } } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** The first port the kernel hands out to outgoing connections (ip_local_port_range); 32768 where unreadable. */
function ephemeralLow(): number {
  const low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  return Number.isInteger(low) && low > 21_000 ? low : 32_768;
}

/**
 * A free TCP port on 127.0.0.1 with `span` free ports after it (servers of GPU i use base + i). Taken below the
 * kernel's ephemeral range: a port found free there could be given to some client's outgoing connection before the
 * server binds it (the launcher then refused it as in use: a race the test could lose on a quiet machine).
 */
export async function freePortBase(span = 1): Promise<number> {
  let low = 32_768;
  try {
    low = ephemeralLow();
  } catch {
    // not Linux: keep the default
  }
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * (low - 20_000 - span));
    let ok = true;
    for (let i = 0; i < span && ok; i++) ok = await portFree(base + i);
    if (ok) return base;
  }
  throw new Error('no free port range found');
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

export interface RunningStandin {
  url: string;
  proc: ResultPromise;
  output: () => string;
  stop: () => Promise<void>;
}

/** Starts bin/fake-vllm directly (no launcher) and waits for /health. */
export async function startStandin(extraArgs: string[], env: Record<string, string>, waitMs = 15_000): Promise<RunningStandin> {
  await buildStandin();
  const port = await freePortBase();
  const { execa } = await import('execa');
  const proc = execa(FAKE_VLLM, ['serve', 'test/model', '--host', '127.0.0.1', '--port', String(port), ...extraArgs], {
    env,
    reject: false,
    all: true,
    buffer: true,
  });
  let out = '';
  proc.all?.on('data', (d: Buffer) => (out += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(
      async () => {
        if (proc.exitCode !== null) throw new Error(`stand-in exited (${proc.exitCode}) while starting`);
        return (await checkHealth(url, 1_000)).ok;
      },
      waitMs,
      'stand-in answering /health',
      { pollMs: 100 },
    );
  } catch (err) {
    proc.kill('SIGKILL');
    throw new Error(`${(err as Error).message}; it printed:\n${out}`);
  }
  return {
    url,
    proc,
    output: () => out,
    stop: async () => {
      proc.kill('SIGTERM');
      await proc;
    },
  };
}

export function readJsonl<T = Record<string, unknown>>(file: string): T[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
}
