// Run identity (AVTime's habit): who produced these rows — run id, git commit, package version, node,
// flags and knobs, endpoints, start time — one line per run in logs/run_identity.jsonl, next to the
// results they explain. The run id also prefixes every runner.log line.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import { accessSync, readFileSync, promises as fs } from 'node:fs';
import { z } from 'zod';
import { AppendFile } from './appendFile';
import { parseBoundedJson } from '../io/boundedJson';

export const runIdentitySchema = z
  .object({
    run_id: z.string(),
    started_at: z.string(),
    git_commit: z.string().nullable(),
    fpsweep_version: z.string().nullable(),
    node_version: z.string(),
    hostname: z.string(),
    pid: z.number().int(),
    argv: z.array(z.string()),
    options: z.record(z.string(), z.unknown()),
    endpoints: z.array(z.string()),
  })
  .passthrough();
export type RunIdentity = z.infer<typeof runIdentitySchema>;

export function newRunId(now = new Date()): string {
  return `${now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}-${randomBytes(3).toString('hex')}`;
}

function findUp(start: string, name: string): string | null {
  let dir = start;
  for (;;) {
    const p = path.join(dir, name);
    try {
      accessSync(p);
      return p;
    } catch {
      /* keep looking */
    }
    const up = path.dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/** The code's own commit (from where this file or bundle lives), or null outside a git checkout. */
export function gitCommit(from = __dirname): string | null {
  try {
    return (
      execFileSync('git', ['rev-parse', 'HEAD'], { cwd: from, stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 })
        .toString()
        .trim() || null
    );
  } catch {
    return null;
  }
}

export function packageVersion(from = __dirname): string | null {
  const p = findUp(from, 'package.json');
  if (!p) return null;
  try {
    const j = parseBoundedJson(readFileSync(p, 'utf8')) as { name?: string; version?: unknown };
    return typeof j.version === 'string' ? `${j.name ?? ''}@${j.version}` : null;
  } catch {
    return null;
  }
}

export function makeRunIdentity(runId: string, options: Record<string, unknown>, endpoints: string[]): RunIdentity {
  return {
    run_id: runId,
    started_at: new Date().toISOString(),
    git_commit: gitCommit(),
    fpsweep_version: packageVersion(),
    node_version: process.version,
    hostname: os.hostname(),
    pid: process.pid,
    argv: process.argv.slice(2),
    options,
    endpoints,
  };
}

/** Where a run type keeps its logs (Frames × Pixels: the package's logs/); run_identity.jsonl goes there. */
export interface LogsPlace {
  readonly root: string;
  readonly logsDir: string;
}

export function runIdentityFile(layout: LogsPlace): string {
  return path.join(layout.logsDir, 'run_identity.jsonl');
}

export async function writeRunIdentity(layout: LogsPlace, id: RunIdentity): Promise<void> {
  const f = new AppendFile(layout.root, runIdentityFile(layout));
  await f.append(JSON.stringify(runIdentitySchema.parse(id)) + '\n', true);
  await f.close();
}

/** Start time of the first fpsweep run on this package (records older than that are the origin's). */
export async function firstRunStart(layout: LogsPlace): Promise<number | null> {
  let text: string;
  try {
    text = await fs.readFile(runIdentityFile(layout), 'utf8');
  } catch {
    return null;
  }
  for (const line of text.split('\n')) {
    try {
      const t = Date.parse((parseBoundedJson(line) as { started_at: string }).started_at);
      if (Number.isFinite(t)) return t;
    } catch {
      /* a torn line: the next one */
    }
  }
  return null;
}
