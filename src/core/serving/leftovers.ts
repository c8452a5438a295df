// Servers a dead run left behind. A worker killed with -9 cannot stop its vLLM children, which keep
// the GPU memory and the ports; the next run (the package lock proves the old one is gone) stops
// them first. Only a process whose command line is still the recorded `serve … --port P` is touched.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { writeFileAtomicSync } from '../runner/atomicFile';
import type { RunRoot } from '../runner/runRoot';
import { parseBoundedJson } from '../io/boundedJson';

const RecordSchema = z.array(z.object({ id: z.string(), pid: z.number().int().positive(), port: z.number().int(), startedAt: z.string() }));
export type ServerRecord = z.infer<typeof RecordSchema>[number];

export function serversFile(layout: Pick<RunRoot, 'stateDir'>): string {
  return path.join(layout.stateDir, 'servers.json');
}

export function readServerRecords(layout: Pick<RunRoot, 'stateDir'>): ServerRecord[] {
  try {
    const r = RecordSchema.safeParse(parseBoundedJson(fs.readFileSync(serversFile(layout), 'utf8')));
    return r.success ? r.data : [];
  } catch {
    return [];
  }
}

export function writeServerRecords(layout: Pick<RunRoot, 'root' | 'stateDir'>, records: readonly ServerRecord[]): void {
  // atomic: a crash leaves the old list or the new one
  writeFileAtomicSync(layout.root, serversFile(layout), JSON.stringify(records, null, 1) + '\n');
}

function isOurServer(rec: ServerRecord): boolean {
  try {
    const argv = fs.readFileSync(`/proc/${rec.pid}/cmdline`, 'utf8').split('\0');
    const i = argv.indexOf('--port');
    return argv.includes('serve') && i >= 0 && argv[i + 1] === String(rec.port);
  } catch {
    return false; // gone (or no /proc): nothing to stop
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Stops recorded servers that still run; returns a line per server stopped. */
export async function stopLeftoverServers(layout: Pick<RunRoot, 'root' | 'stateDir'>, graceMs: number): Promise<string[]> {
  const said: string[] = [];
  for (const rec of readServerRecords(layout)) {
    if (!isOurServer(rec)) continue;
    process.kill(rec.pid, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (alive(rec.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (alive(rec.pid)) process.kill(rec.pid, 'SIGKILL');
    said.push(`stopped ${rec.id} (pid ${rec.pid}, port ${rec.port}) left running by an earlier run started ${rec.startedAt}`);
  }
  writeServerRecords(layout, []);
  return said;
}
