// Stage 2, target inference (SPEC-AVTIME §3): each shard sends its inputs to its own server and appends one
// raw line per answer (one write + fsync). Canonical: a fresh shard, fail closed — the first row error stops
// every shard (in-flight answers are still kept), exit 1; afterwards coverage must be exactly the assigned
// ids, each once. Non-canonical (--resume --keep-going): ids already written are skipped and errors do not
// stop the others, but any error still fails the stage. Each shard is pinned to its server (one group → one
// shard): a server that is down takes no row (the fleet's /health), and, on given endpoints under --keep-going,
// a row whose server gave no answer stays to do while the other shards go on (runner/serverHealth.ts: the run
// stops once every server with rows left has been unreachable for --fail-down).
import { promises as fs } from 'node:fs';
import { z } from 'zod';
import type { VllmClient, Endpoint } from '../../../serving/client';
import { runRequests, type RunnerJob } from '../../../runner/requestRunner';
import { clientServers } from '../../../runner/requestServers';
import type { ServerReach } from '../../../runner/requestChannel';
import { AppendFile } from '../../../runner/appendFile';
import { setAsideTornJsonlTail } from '../../../runner/tornTail';
import { readOptionalJsonl } from '../../../package/jsonl';
import { writeFileAtomic } from './files';
import type { TargetInput } from './inputSchemas';
import type { AvtimeRunLayout } from './layout';
import { splitShards } from './shards';
import { askTarget } from './targetRow';
import { rawPredictionSchema } from './rawPrediction';
import type { TargetPlan } from '../../../serving/models/qwen3Omni/videoPlan';
import { makeTargetPlanner } from './preflight';
import { openAppendUnder } from '../../../containment/rootFs';
import type { Fleet } from '../../../serving/launcher';

export const shardSummarySchema = z.object({
  expected: z.number().int(),
  written: z.number().int(),
  failed: z.number().int(),
  errors: z.array(z.object({ id: z.string(), kind: z.string(), message: z.string() })),
});
export type ShardSummary = z.infer<typeof shardSummarySchema>;

export interface ShardProgress {
  shard: number;
  endpoint: string;
  expected: number;
  written: number;
  failed: number;
  state: 'todo' | 'running' | 'done' | 'failed' | 'stopped';
}

export interface InferOptions {
  layout: AvtimeRunLayout;
  inputs: readonly TargetInput[];
  prompt: string;
  /** The model name the servers answer to. */
  model: string;
  /** One per shard, in shard order. */
  endpoints: readonly (Endpoint & { signal?: AbortSignal })[];
  audioInVideo: boolean;
  /** The reference's frames, size and counts for a video (./preflight.ts makeTargetPlanner): sent per request. */
  planFor?: (videoPath: string) => Promise<TargetPlan>;
  /** false: --resume --keep-going. */
  canonical: boolean;
  /** Requests in flight per shard (the seed's batch size per replica). */
  concurrency: number;
  onProgress?: (p: ShardProgress) => void;
  log?: (line: string) => void;
  /** Client knobs (tests shorten retries). */
  clientOptions?: ConstructorParameters<typeof VllmClient>[1];
  /**
   * Aborted when the run is stopped: in-flight requests are cut (a cut row is no row error) and the stage
   * throws the abort's reason, writing no shard summary (the shards are incomplete).
   */
  cutSignal?: AbortSignal;
  /** --keep-going on given endpoints: told of lost requests and answers, and of each shard that has no row left. */
  reach?: ServerReach & { finished(index: number): void };
  /** With `reach`: the servers' fleet; a shard whose server is not up sends nothing until it is (its rows wait). */
  fleet?: Pick<Fleet, 'on' | 'handles'>;
}

export interface InferResult {
  ok: boolean;
  shards: (ShardSummary & { shard: number; coverage: string | null })[];
  /** The line that says what happened, in numbers. */
  line: string;
}

export function assignShards(inputs: readonly TargetInput[], groups: number): TargetInput[][] {
  return splitShards(inputs, groups);
}

/** The ids already written in a raw predictions file (resume); a torn tail is set aside first. */
export async function writtenIds(file: string, log?: (l: string) => void): Promise<Map<string, number>> {
  const torn = await setAsideTornJsonlTail(file);
  if (torn) log?.(`${file}: ${torn.reason}; its last ${torn.bytes} bytes moved to ${torn.sideFile}`);
  const { records, problems } = await readOptionalJsonl(file, rawPredictionSchema);
  if (problems.length) throw new Error(`${problems[0].file}:${problems[0].line}: ${problems[0].message}`);
  const ids = new Map<string, number>();
  for (const r of records) ids.set(r.value.id, (ids.get(r.value.id) ?? 0) + 1);
  return ids;
}

/** Exact coverage: every assigned id once, nothing else. null when it holds, else what is wrong. */
export async function checkCoverage(file: string, assigned: readonly string[]): Promise<string | null> {
  const { records, problems } = await readOptionalJsonl(file, rawPredictionSchema);
  if (problems.length) return `${problems[0].file}:${problems[0].line}: ${problems[0].message}`;
  const want = new Set(assigned);
  const seen = new Map<string, number>();
  for (const r of records) seen.set(r.value.id, (seen.get(r.value.id) ?? 0) + 1);
  const missing = assigned.filter((id) => !seen.has(id));
  const doubled = [...seen].filter(([, n]) => n > 1).map(([id]) => id);
  const foreign = [...seen.keys()].filter((id) => !want.has(id));
  if (!missing.length && !doubled.length && !foreign.length) return null;
  const show = (ids: string[]) => ids.slice(0, 5).join(', ') + (ids.length > 5 ? ` (+${ids.length - 5})` : '');
  return [
    missing.length ? `${missing.length} assigned id(s) missing: ${show(missing)}` : '',
    doubled.length ? `${doubled.length} id(s) written more than once: ${show(doubled)}` : '',
    foreign.length ? `${foreign.length} id(s) not assigned to this shard: ${show(foreign)}` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

export async function runInference(options: InferOptions): Promise<InferResult> {
  const opts = { ...options, planFor: options.planFor ?? makeTargetPlanner(options.audioInVideo) };
  const shards = assignShards(opts.inputs, opts.endpoints.length);
  // Every shard's files first: a canonical shard that exists refuses the run before any request is sent.
  const open = await Promise.all(shards.map((rows, k) => openShard(k, rows, opts)));
  const results = await sendShards(open, opts);
  opts.cutSignal?.throwIfAborted();
  const withCoverage = await Promise.all(
    results.map(async (r, k) => ({
      ...r,
      shard: k,
      coverage: await checkCoverage(
        opts.layout.rawPredictions(k),
        shards[k].map((x) => x.id),
      ),
    })),
  );
  for (const r of withCoverage) {
    await writeFileAtomic(
      opts.layout.root,
      opts.layout.shardSummary(r.shard),
      JSON.stringify(shardSummarySchema.parse({ expected: r.expected, written: r.written, failed: r.failed, errors: r.errors }), null, 1) + '\n',
    );
  }
  const ok = withCoverage.every((r) => r.failed === 0 && r.coverage === null);
  const parts = withCoverage.map(
    (r) => `shard${r.shard} ${r.written}/${r.expected} written, ${r.failed} failed${r.coverage ? ` (coverage: ${r.coverage})` : ''}`,
  );
  return { ok, shards: withCoverage, line: `target inference ${ok ? 'done' : 'FAILED'}: ${parts.join('; ')}` };
}

/** One shard as it runs: its rows still to ask, its raw file, its counts. */
interface OpenShard {
  k: number;
  todo: readonly TargetInput[];
  out: AppendFile;
  expected: number;
  written: number;
  errors: ShardSummary['errors'];
}

/** A row to ask, pinned to its shard's server (the shard → server rule). */
interface RowJob extends RunnerJob {
  row: TargetInput;
  shard: OpenShard;
}

async function openShard(k: number, rows: readonly TargetInput[], opts: InferOptions): Promise<OpenShard> {
  const file = opts.layout.rawPredictions(k);
  let todo = rows;
  if (!opts.canonical) {
    const have = await writtenIds(file, opts.log);
    todo = rows.filter((r) => !have.has(r.id));
  } else if (
    await fs.stat(file).then(
      () => true,
      () => false,
    )
  ) {
    throw new Error(`${file} exists: a canonical target shard never resumes (start a new run, or one started with --resume --keep-going)`);
  }
  return { k, todo, out: new AppendFile(opts.layout.root, file), expected: rows.length, written: rows.length - todo.length, errors: [] };
}

/**
 * Every shard's rows through the engine's request runner, each on its own server (a pinned lane). Canonical:
 * the first row error stops every shard (in-flight requests cut, no error for them); otherwise errors are
 * recorded and the shards go on. A run's stop cuts in-flight requests and records nothing for them.
 */
async function sendShards(shards: OpenShard[], opts: InferOptions & Required<Pick<InferOptions, 'planFor'>>): Promise<ShardSummary[]> {
  const progress = (s: OpenShard, state: ShardProgress['state']) =>
    opts.onProgress?.({ shard: s.k, endpoint: opts.endpoints[s.k].url, expected: s.expected, written: s.written, failed: s.errors.length, state });
  for (const s of shards) {
    progress(s, 'running');
    await (await openAppendUnder(opts.layout.root, opts.layout.rawPredictions(s.k))).close(); // the shard's file exists from its start, empty or not
  }
  const servers = clientServers<object>(opts.endpoints, { connections: opts.concurrency, ...opts.clientOptions });
  const jobs: RowJob[] = shards.flatMap((shard) =>
    shard.todo.map((row) => ({ key: row.id, tasks: [{ key: row.id, group: row.id, cost: 1 }], pin: shard.k, row, shard })),
  );
  // A shard with no row left holds nothing its server is needed for (the unreachable rule stops waiting for it).
  const settled = (s: OpenShard) => {
    if (s.written + s.errors.length >= s.expected) opts.reach?.finished(s.k);
  };
  shards.forEach(settled);
  try {
    await runRequests(
      { cutSignal: opts.cutSignal },
      servers,
      jobs,
      {
        execute: async (_task, { row, shard }, server, requeues, channel) => {
          const ask = { id: row.id, video_id: row.metadata.video_id, video: row.videos[0], prompt: opts.prompt };
          const out = await askTarget(ask, { model: opts.model, audioInVideo: opts.audioInVideo, planFor: opts.planFor }, server, requeues, channel);
          if (out.kind === 'requeue') return 'requeue';
          if (out.kind === 'answer') {
            await shard.out.append(JSON.stringify(out.line) + '\n', true);
            shard.written++;
          } else {
            shard.errors.push(out.error);
            opts.log?.(`shard${shard.k}: ${row.id} failed (${out.error.kind}): ${out.error.message}`);
          }
          progress(shard, 'running');
          settled(shard);
          return 'done';
        },
      },
      {
        slots: opts.endpoints.map(() => ({ capacity: opts.concurrency })),
        policy: () => (opts.canonical ? 'stop' : 'record'),
        reach: opts.reach,
        // Under the unreachable rule only: it bounds the wait (a launched server down for good, or the rule off, would
        // leave its shard's rows waiting with nothing to stop them; there they are sent, and fail, as before).
        fleet: opts.reach ? opts.fleet : undefined,
      },
    );
  } finally {
    await Promise.all(shards.map((s) => s.out.close()));
    await servers.close();
  }
  return shards.map((s) => {
    progress(s, s.errors.length ? 'failed' : s.written === s.expected ? 'done' : 'stopped');
    return { expected: s.expected, written: s.written, failed: s.errors.length, errors: s.errors };
  });
}
