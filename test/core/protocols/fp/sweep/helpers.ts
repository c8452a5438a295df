// Shared by the runner's integration tests: stand-in servers on free ports, env knobs set for one
// call, and the checks every run must pass (one row per key, every raw record matched by its row).
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { parse } from 'csv-parse/sync';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import { rawRecordSchema, type RawRecord } from '../../../../../src/core/protocols/fp/package/schemas';
import { waitFor } from '../../../../helpers/waitFor';

export const REPO = path.resolve(__dirname, '../../../../..');
export const FAKE_VLLM = path.join(REPO, 'bin', 'fake-vllm');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** N consecutive free ports (the launcher puts GPU i on basePort + i). */
export async function freePortRange(n: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20000 + Math.floor(Math.random() * 30000);
    const ok = await Promise.all(Array.from({ length: n }, (_, i) => portFree(base + i)));
    if (ok.every(Boolean)) return base;
  }
  throw new Error('no free port range');
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** Sets environment variables for the duration of fn (the launcher's servers inherit them). */
export async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const old: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(vars)) {
    old[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(old)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

export interface Standin {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** A stand-in vLLM someone else runs (for --endpoints), started like `vllm serve`; `port`: a given one (a restart). */
export async function startStandin(
  opts: { maxModelLen?: number; env?: Record<string, string>; mediaPath?: string; port?: number; args?: string[] } = {},
): Promise<Standin> {
  const port = opts.port ?? (await freePort());
  const args = [
    'serve',
    'Qwen/Qwen3-VL-8B-Instruct',
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
    '--max-model-len',
    String(opts.maxModelLen ?? 65536),
    '--limit-mm-per-prompt',
    '{"image": 1024}',
    '--max-num-seqs',
    '32',
  ];
  if (opts.mediaPath) args.push('--allowed-local-media-path', opts.mediaPath);
  if (opts.args) args.push(...opts.args);
  const child = spawn(FAKE_VLLM, args, { stdio: 'ignore', env: { ...process.env, ...opts.env } });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`stand-in on ${port} exited (${child.exitCode}) while starting`);
      return fetch(`${url}/health`).then(
        (r) => r.status === 200,
        () => false, // starting
      );
    },
    60_000,
    `stand-in on ${port} did not answer /health`,
    { pollMs: 200 },
  );
  return {
    url,
    child,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface Artifacts {
  header: string[];
  rows: Record<string, string>[];
  raws: RawRecord[];
}

/** Reads the CSV and every raw file. */
export async function readArtifacts(layout: PackageLayout): Promise<Artifacts> {
  const records = parse(await fs.readFile(layout.resultsCsv), { relax_column_count: false }) as string[][];
  const header = records[0];
  const rows = records.slice(1).map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])));
  const raws: RawRecord[] = [];
  const rawRoot = path.join(layout.resultsDir, 'p1_raw');
  for (const cond of await fs.readdir(rawRoot).catch(() => [] as string[])) {
    for (const f of await fs.readdir(path.join(rawRoot, cond))) {
      if (!f.endsWith('__DIAG_V.jsonl')) continue;
      const text = await fs.readFile(path.join(rawRoot, cond, f), 'utf8');
      assert.ok(text === '' || text.endsWith('\n'), `${cond}/${f} ends with a whole line`);
      for (const line of text.split('\n').filter(Boolean)) raws.push(rawRecordSchema.parse(JSON.parse(line)));
    }
  }
  return { header, rows, raws };
}

const key = (b: string, i: string, c: string) => `${b}/${i}/${c}`;

/**
 * The invariants of SPEC §4 after any run, crashed or not: at most one row per (benchmark, item,
 * condition); every raw record has exactly one row and no raw record is doubled.
 */
export function assertConsistent(a: Artifacts, origin: Set<string> = new Set()): void {
  const rowKeys = new Map<string, number>();
  for (const r of a.rows) rowKeys.set(key(r.benchmark, r.item_id, r.condition), (rowKeys.get(key(r.benchmark, r.item_id, r.condition)) ?? 0) + 1);
  const doubled = [...rowKeys].filter(([, n]) => n > 1).map(([k]) => k);
  assert.deepEqual(doubled, [], 'rows doubled');
  const rawKeys = new Map<string, number>();
  for (const r of a.raws) rawKeys.set(key(r.benchmark, r.item_id, r.condition), (rawKeys.get(key(r.benchmark, r.item_id, r.condition)) ?? 0) + 1);
  assert.deepEqual(
    [...rawKeys].filter(([, n]) => n > 1).map(([k]) => k),
    [],
    'raw records doubled',
  );
  assert.deepEqual(
    [...rawKeys.keys()].filter((k) => !rowKeys.has(k)),
    [],
    'raw records without a row',
  );
  // every row we wrote has its raw record (the origin's rows may lack raw records in the sample)
  assert.deepEqual(
    [...rowKeys.keys()].filter((k) => !rawKeys.has(k) && !origin.has(k)),
    [],
    'rows without a raw record',
  );
  // Every answered record keeps its predicted prompt tokens beside usage.prompt_tokens; the stand-in
  // charges exactly the prediction for the JPEGs it decoded, so the two agree when the frames sent
  // have the dims the plan predicted for.
  // (The origin's records predate the field.)
  const ours = a.raws.filter((r) => !origin.has(key(r.benchmark, r.item_id, r.condition)));
  const off = ours
    .filter((r) => r.status === 'ok' && r.meta.predicted_prompt_tokens !== r.usage.prompt_tokens)
    .map((r) => `${key(r.benchmark, r.item_id, r.condition)}: predicted ${r.meta.predicted_prompt_tokens}, charged ${r.usage.prompt_tokens}`);
  assert.deepEqual(off, [], "predicted prompt tokens differ from the stand-in's charge");
  for (const r of ours.filter((x) => x.status !== 'ok')) assert.equal(r.meta.predicted_prompt_tokens, null, `${r.status} records predict nothing`);
}

export function rowKeySet(a: Artifacts): Set<string> {
  return new Set(a.rows.map((r) => key(r.benchmark, r.item_id, r.condition)));
}

export { key as artifactKey };

/** A TCP door in front of a server: shut, its port refuses and open connections are reset; open, it forwards again. */
export class Door {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  constructor(
    readonly port: number,
    private readonly to: number,
  ) {}
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }
  async open(): Promise<void> {
    const server = net.createServer((c) => {
      const up = net.connect(this.to, '127.0.0.1');
      for (const s of [c, up]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      c.pipe(up).pipe(c);
    });
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(this.port, '127.0.0.1', resolve));
    this.server = server;
  }
  async shut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
