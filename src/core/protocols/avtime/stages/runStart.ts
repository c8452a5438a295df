// `.fpsweep/avtime-run.json`: what a run was started with, written once when the run starts and read back by a
// resume (which keeps its options, bench bytes and shard count), by the progress tree and by the report. One
// schema for all three.
import { promises as fs } from 'node:fs';
import { z } from 'zod';
import type { AvtimeOutputRoot, BenchRoot } from './layout';
import { sha256File, writeFileAtomic } from './files';
import { parseBoundedJson } from '../../../io/boundedJson';

export const runStartSchema = z.object({
  run_id: z.string(),
  started_at: z.string(),
  canonical: z.boolean(),
  options: z.record(z.string(), z.unknown()),
  /** The target shard count the run started with (a resume must keep it: shard membership is by count). */
  shards: z.number().int().positive().optional(),
  /** sha256 of the bench root's files the run started from; a resume refuses other bytes. */
  input_sha256: z.record(z.string(), z.string()).optional(),
});
export type RunStart = z.infer<typeof runStartSchema>;

/** The run's start record, or null when there is none (or not one this schema reads). */
export async function readRunStart(root: Pick<AvtimeOutputRoot, 'root' | 'runStart'>): Promise<RunStart | null> {
  try {
    const r = runStartSchema.safeParse(parseBoundedJson(await fs.readFile(root.runStart, 'utf8')));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

export async function writeRunStart(root: Pick<AvtimeOutputRoot, 'root' | 'runStart'>, start: RunStart): Promise<void> {
  await writeFileAtomic(root.root, root.runStart, JSON.stringify(start, null, 1) + '\n');
}

/** The bench root's files a run is computed from (the target inputs are checked by their own rules). */
export function benchInputFiles(bench: BenchRoot): Record<string, string> {
  return { test: bench.test, inventory: bench.inventory, manifest: bench.manifest, target_prompt: bench.prompt('target') };
}

export async function hashInputs(files: Record<string, string>): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [k, f] of Object.entries(files)) out[k] = await sha256File(f).catch(() => 'missing');
  return out;
}

/** The names of the files whose bytes differ from the run's start (none when the start recorded no hashes). */
export async function changedInputs(recorded: Record<string, string> | undefined, files: Record<string, string>): Promise<string[]> {
  if (!recorded) return [];
  const now = await hashInputs(files);
  return Object.keys(recorded).filter((k) => recorded[k] !== now[k]);
}
