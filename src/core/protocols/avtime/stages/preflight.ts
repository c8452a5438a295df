// The target pre-flight (SPEC-AVTIME §3): before any shard, one real target input per server — the first of
// that server's shard — sent exactly as the shard sends it plus `return_token_ids: true`. The video and audio
// placeholder tokens in the returned `prompt_token_ids` are held against what the reference's preprocessing
// gives that file (serving/models/qwen3Omni/videoPlan.ts). A count that differs, or no audio token at all, stops the run
// before any shard (exit 1) with both counts and what they mean; logs/preflight.json keeps them.
import { promises as fs } from 'node:fs';
import { VllmClient, type Endpoint } from '../../../serving/client';
import { countPlaceholders, OMNI_AUDIO_TOKEN_ID, OMNI_VIDEO_TOKEN_ID, type PlaceholderCounts } from '../../../serving/models/qwen3Omni/counts';
import { judgePlaceholderCounts } from '../../../serving/models/qwen3Omni/preflightCounts';
import { probeMedia, type MediaFacts } from '../../../serving/models/qwen3Omni/mediaFacts';
import { targetPlan, type TargetPlan } from '../../../serving/models/qwen3Omni/videoPlan';
import { writeFileAtomic } from './files';
import { preflightRecordSchema, type AvtimePreflightRecord, type AvtimePreflightServer } from './preflightSchema';
import type { TargetInput } from './inputSchemas';
import type { AvtimeRunLayout } from './layout';
import { buildTargetRequest } from './targetRequest';
import { parseBoundedJson } from '../../../io/boundedJson';

export { preflightRecordSchema, preflightServerSchema, type AvtimePreflightRecord, type AvtimePreflightServer } from './preflightSchema';

/** Pure: what is wrong with the server's counts, in words, or null when they are the reference's (the model's judgement). */
export function judgePreflightCounts(
  predicted: PlaceholderCounts,
  got: PlaceholderCounts,
  audioInVideo: boolean,
  plan?: Pick<TargetPlan, 'nframes' | 'modelSize'> & Partial<Pick<TargetPlan, 'serverPixels'>>,
): string | null {
  return judgePlaceholderCounts(predicted, got, audioInVideo ? 'in-video' : 'none', plan);
}

export interface PreflightOptions {
  layout: AvtimeRunLayout;
  /** One per server, in shard order: the first input of that server's shard. */
  firsts: readonly TargetInput[];
  endpoints: readonly Endpoint[];
  model: string;
  prompt: string;
  audioInVideo: boolean;
  planFor: (videoPath: string) => Promise<TargetPlan>;
  clientOptions?: ConstructorParameters<typeof VllmClient>[1];
  /** Aborted when the run is stopped: the requests are cut and the pre-flight throws, recording nothing. */
  signal?: AbortSignal;
}

export async function runTargetPreflight(o: PreflightOptions): Promise<{ ok: boolean; record: AvtimePreflightRecord; line: string }> {
  const servers = await Promise.all(o.endpoints.map((ep, k) => preflightOne(ep, o.firsts[k], o)));
  o.signal?.throwIfAborted();
  const ok = servers.every((s) => s.ok);
  const record: AvtimePreflightRecord = {
    ts: new Date().toISOString(),
    ok,
    audio_in_video: o.audioInVideo,
    token_ids: { video: OMNI_VIDEO_TOKEN_ID, audio: OMNI_AUDIO_TOKEN_ID },
    servers,
  };
  await writeFileAtomic(o.layout.root, o.layout.preflight, JSON.stringify(preflightRecordSchema.parse(record), null, 1) + '\n');
  const show = (c: PlaceholderCounts | null) => (c ? `video ${c.video}, audio ${c.audio}` : 'none');
  const parts = servers.map((s) => `${s.endpoint} (${s.input_id}): ${s.ok ? `counts ${show(s.got)} as the reference` : `${s.problem}`}`);
  const line = ok
    ? `target pre-flight ok: ${parts.join('; ')}`
    : `target pre-flight FAILED before any shard: ${parts.join('; ')} (counts kept in ${o.layout.preflight})`;
  return { ok, record, line };
}

async function preflightOne(ep: Endpoint, row: TargetInput | undefined, o: PreflightOptions): Promise<AvtimePreflightServer> {
  const base = { endpoint: ep.url, input_id: row?.id ?? '', video: row?.videos[0] ?? '', predicted: null, got: null, nframes: null, model_size: null };
  if (!row) return { ...base, ok: true, problem: null }; // a server with an empty shard has nothing to send
  let plan: TargetPlan;
  try {
    plan = await o.planFor(row.videos[0]);
  } catch (err) {
    return { ...base, ok: false, problem: `the reference preprocessing of ${row.videos[0]} cannot be computed: ${(err as Error).message}` };
  }
  const withPlan = { ...base, predicted: plan.predicted, nframes: plan.nframes, model_size: plan.modelSize };
  const body = { ...buildTargetRequest(o.model, row.videos[0], o.prompt, o.audioInVideo, plan), return_token_ids: true as const };
  const client = new VllmClient({ url: ep.url, apiKey: ep.apiKey }, { connections: 1, ...o.clientOptions });
  try {
    const res = await client.chat(body, o.signal);
    if (!res.ok)
      return { ...withPlan, ok: false, problem: `the server refused the first input (${res.kind}${res.status ? `, HTTP ${res.status}` : ''}): ${res.message}` };
    if (!res.promptTokenIds)
      return { ...withPlan, ok: false, problem: 'the answer has no prompt_token_ids: the server ignored return_token_ids (a vLLM older than the pin?)' };
    const got = countPlaceholders(res.promptTokenIds);
    const problem = judgePreflightCounts(plan.predicted, got, o.audioInVideo, plan);
    return { ...withPlan, got, ok: problem === null, problem };
  } finally {
    await client.close();
  }
}

/** probeMedia + targetPlan, once per file (the pre-flight's input is sent again by its shard). */
export function makeTargetPlanner(
  audioInVideo: boolean,
  probe: (file: string) => Promise<MediaFacts> = probeMedia,
): (videoPath: string) => Promise<TargetPlan> {
  const memo = new Map<string, Promise<TargetPlan>>();
  return (videoPath) => {
    let p = memo.get(videoPath);
    if (!p) {
      p = probe(videoPath).then((facts) => targetPlan(facts, audioInVideo));
      memo.set(videoPath, p);
    }
    return p;
  };
}

/** The status file's small copy (../stages/statusSchema.ts preflight). */
export function preflightStatus(r: AvtimePreflightRecord) {
  return { ok: r.ok, servers: r.servers.map((s) => ({ endpoint: s.endpoint, ok: s.ok, predicted: s.predicted, got: s.got, problem: s.problem })) };
}

/** logs/preflight.json as written (null when the pre-flight never ran in this root, e.g. inference done before). */
export async function readPreflight(layout: AvtimeRunLayout): Promise<AvtimePreflightRecord | null> {
  const text = await fs.readFile(layout.preflight, 'utf8').catch(() => null);
  if (text === null) return null;
  const r = preflightRecordSchema.safeParse(parseBoundedJson(text));
  return r.success ? r.data : null;
}
