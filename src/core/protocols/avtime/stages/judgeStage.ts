// Stage 4, the judge (SPEC-AVTIME §6): one request per query that needs it (caption text only), pass 1 at
// 512 tokens over all of them, then a retry pass at 4096 over what failed; any failure left is fatal.
// Every valid answer is appended (one write + fsync) to semantic_responses.jsonl the moment it arrives, so a
// crash loses at most what was in flight: a resumed stage re-asks only the queries with no stored response
// under the full identity match (responseMatches), and a query that already failed pass 1 goes to the retry.
import { z } from 'zod';
import type { ChatResult, Endpoint, VllmClient } from '../../../serving/client';
import { runRequests } from '../../../runner/requestRunner';
import { clientServers } from '../../../runner/requestServers';
import type { ServerReach } from '../../../runner/requestChannel';
import { AppendFile } from '../../../runner/appendFile';
import { setAsideTornJsonlTail } from '../../../runner/tornTail';
import { readOptionalJsonl } from '../../../package/jsonl';
import { JUDGE_MAX_TOKENS, type JudgePass } from '../constants';
import type { Prediction } from '../normalize';
import type { Query } from '../queries';
import { buildJudgeRequest, needsJudge, shownEventIds, type JudgeRequestLine } from '../judge/request';
import { parseJudgeResponse, responseMatches, type JudgeResponseIdentity } from '../judge/response';
import { JUDGE_KINDS, JUDGE_SCHEMAS, type JudgeKind } from '../judge/schemas';
import type { JudgeTemplate } from '../judge/template';
import type { AvtimeRunLayout } from './layout';
import { writeFileAtomic } from './files';
import { openAppendUnder } from '../../../containment/rootFs';
import type { Fleet } from '../../../serving/launcher';

const identityShape = {
  query_id: z.string(),
  axis: z.enum(['A', 'V']),
  branch: z.enum(['main', 'pair']),
  video_id: z.string(),
  request_type: z.enum(JUDGE_KINDS),
  pass: z.number().int(),
  request_sha256: z.string(),
};

export const judgeResponseLineSchema = z
  .object({
    ...identityShape,
    model_id: z.string(),
    prompt_version: z.string(),
    prompt_sha256: z.string(),
    schema_version: z.string(),
    schema_sha256: z.string(),
    response: z.record(z.string(), z.unknown()),
    raw: z.string(),
    ts: z.string(),
  })
  .passthrough();
export type JudgeResponseLine = z.infer<typeof judgeResponseLineSchema>;

export const judgeFailureLineSchema = z
  .object({
    ...identityShape,
    model_id: z.string(),
    reason: z.string(),
    detail: z.string(),
    raw: z.string().nullable(),
    ts: z.string(),
  })
  .passthrough();
export type JudgeFailureLine = z.infer<typeof judgeFailureLineSchema>;

const requestLineSchema = z.object({ ...identityShape, body: z.record(z.string(), z.unknown()) }).passthrough();

export interface JudgePassProgress {
  pass: JudgePass;
  maxTokens: number;
  requests: number;
  done: number;
  failed: number;
  state: 'todo' | 'running' | 'done' | 'failed' | 'skipped';
}

export interface JudgeStageOptions {
  layout: AvtimeRunLayout;
  queries: readonly Query[];
  /** The normalized prediction per video_id; a video absent here is a prediction failure (no judge call). */
  predictions: ReadonlyMap<string, Prediction>;
  templates: Readonly<Record<JudgeKind, JudgeTemplate>>;
  /** The judge's recorded identity (JUDGE_MODEL_ID) and the name its server answers to. */
  modelId: string;
  servedModel: string;
  endpoints: readonly (Endpoint & { signal?: AbortSignal })[];
  /** Requests in flight, pass 1 and the retry pass (the seed's 32 and 16). */
  batch: Readonly<Record<JudgePass, number>>;
  onProgress?: (p: JudgePassProgress) => void;
  /** Before each pass: wait for the judge servers to be up again (a crash restarts them); false = give up. */
  waitUp?: () => Promise<boolean>;
  log?: (line: string) => void;
  clientOptions?: ConstructorParameters<typeof VllmClient>[1];
  /**
   * Aborted when the run is stopped: in-flight requests are cut (a cut request is no failure line) and the
   * stage throws the abort's reason, writing no report (the judge is incomplete; a resume re-asks what is left).
   */
  cutSignal?: AbortSignal;
  /** A given judge endpoint: told of lost requests and answers; while it is lost they stay to do (runner/unreachableRule.ts). */
  reach?: ServerReach;
  /** With `reach`: the judge's fleet, so a server whose /health says down is not sent to until it is up. */
  fleet?: Pick<Fleet, 'on' | 'handles'>;
}

export interface JudgeStageResult {
  ok: boolean;
  /** The response that counts, per query_id (only queries that need the judge). */
  counted: Map<string, JudgeResponseLine>;
  line: string;
}

interface Planned {
  query: Query;
  prediction: Prediction;
  nShown: number;
  request: Record<JudgePass, JudgeRequestLine>;
  wanted: Record<JudgePass, JudgeResponseIdentity>;
}

export function wantedIdentity(req: JudgeRequestLine, template: JudgeTemplate, modelId: string): JudgeResponseIdentity {
  const schema = JUDGE_SCHEMAS[req.request_type];
  return {
    query_id: req.query_id,
    axis: req.axis,
    branch: req.branch,
    video_id: req.video_id,
    request_type: req.request_type,
    model_id: modelId,
    prompt_version: template.prompt_version,
    prompt_sha256: template.prompt_sha256,
    schema_version: schema.schema_version,
    schema_sha256: schema.schema_sha256,
    request_sha256: req.request_sha256,
  };
}

/** The judge requests of a run (both passes' bodies), in manifest order; queries that need no judge are left out. */
export function planJudge(o: Pick<JudgeStageOptions, 'queries' | 'predictions' | 'templates' | 'servedModel' | 'modelId'>): Planned[] {
  const out: Planned[] = [];
  for (const query of o.queries) {
    const prediction = o.predictions.get(query.video_id);
    if (!prediction || !needsJudge(query, prediction)) continue;
    const kind = query.direction === 't2e' ? 't2e_scalar' : query.direction === 'e2t' ? 'semantic_selector' : 'semantic_pair_selector';
    const template = o.templates[kind];
    const request = {
      1: buildJudgeRequest(query, prediction, { template, model: o.servedModel, pass: 1 }),
      2: buildJudgeRequest(query, prediction, { template, model: o.servedModel, pass: 2 }),
    };
    out.push({
      query,
      prediction,
      nShown: shownEventIds(query, prediction).length,
      request,
      wanted: { 1: wantedIdentity(request[1], template, o.modelId), 2: wantedIdentity(request[2], template, o.modelId) },
    });
  }
  return out;
}

/** The counted response per query: a stored valid response matching the wanted identity, the retry pass's first. */
export function countedResponses(planned: readonly Planned[], stored: readonly JudgeResponseLine[]): Map<string, JudgeResponseLine> {
  const counted = new Map<string, JudgeResponseLine>();
  for (const p of planned) {
    for (const pass of [2, 1] as const) {
      // A stored line counts only under the full identity match and if its raw text still parses as valid.
      const hit = [...stored].reverse().find((s) => responseMatches(s, p.wanted[pass]) && parseJudgeResponse(s.request_type, s.raw, p.nShown).ok);
      if (hit) {
        counted.set(p.query.query_id, hit);
        break;
      }
    }
  }
  return counted;
}

async function readStored<T>(file: string, schema: z.ZodType<T, z.ZodTypeDef, unknown>, log?: (l: string) => void): Promise<T[]> {
  const torn = await setAsideTornJsonlTail(file);
  if (torn) log?.(`${file}: ${torn.reason}; its last ${torn.bytes} bytes moved to ${torn.sideFile}`);
  const { records, problems } = await readOptionalJsonl(file, schema);
  if (problems.length) throw new Error(`${problems[0].file}:${problems[0].line}: ${problems[0].message}`);
  return records.map((r) => r.value);
}

export async function runJudge(o: JudgeStageOptions): Promise<JudgeStageResult> {
  const planned = planJudge(o);
  const L = o.layout;
  const stored = await readStored(L.semanticResponses, judgeResponseLineSchema, o.log);
  const storedFailures = await readStored(L.semanticFailures, judgeFailureLineSchema, o.log);
  const storedRequests = await readStored(L.semanticRequests, requestLineSchema, o.log);
  const haveRequest = new Set(storedRequests.map((r) => `${r.query_id}\0${r.pass}\0${r.request_sha256}`));
  const responses = new AppendFile(L.root, L.semanticResponses);
  const failures = new AppendFile(L.root, L.semanticFailures);
  const requests = new AppendFile(L.root, L.semanticRequests);
  for (const f of [L.semanticResponses, L.semanticFailures, L.semanticRequests]) await (await openAppendUnder(L.root, f)).close();
  const counted = countedResponses(planned, stored);
  const reused = counted.size;
  const servers = clientServers<object>(o.endpoints, { connections: Math.max(o.batch[1], o.batch[2]), ...o.clientOptions });
  // One answer (or failure) of a pass: a valid response line counts at once; anything else is a failure line.
  const record = async (p: Planned, pass: JudgePass, res: ChatResult, prog: JudgePassProgress) => {
    const req = p.request[pass];
    const ident = {
      query_id: req.query_id,
      axis: req.axis,
      branch: req.branch,
      video_id: req.video_id,
      request_type: req.request_type,
      pass,
      request_sha256: req.request_sha256,
    };
    const parsed = res.ok ? parseJudgeResponse(req.request_type, res.text, p.nShown) : null;
    if (res.ok && parsed?.ok) {
      const w8 = p.wanted[pass];
      const line: JudgeResponseLine = {
        ...ident,
        model_id: o.modelId,
        prompt_version: w8.prompt_version,
        prompt_sha256: w8.prompt_sha256,
        schema_version: w8.schema_version,
        schema_sha256: w8.schema_sha256,
        response: parsed.value as unknown as Record<string, unknown>,
        raw: res.text,
        ts: new Date().toISOString(),
      };
      await responses.append(JSON.stringify(line) + '\n', true);
      counted.set(p.query.query_id, line);
      prog.done++;
    } else {
      const reason = res.ok ? (parsed as { reason: string }).reason : res.kind;
      const detail = res.ok ? (parsed as { detail: string }).detail : res.message;
      const line: JudgeFailureLine = { ...ident, model_id: o.modelId, reason, detail, raw: res.ok ? res.text : null, ts: new Date().toISOString() };
      await failures.append(JSON.stringify(line) + '\n', true);
      prog.failed++;
    }
  };
  const passes: JudgePassProgress[] = [];
  const failedIn1 = new Set(storedFailures.filter((f) => f.pass === 1).map((f) => `${f.query_id}\0${f.request_sha256}`));
  try {
    for (const pass of [1, 2] as const) {
      const todo = planned.filter(
        (p) => !counted.has(p.query.query_id) && (pass === 2 || !failedIn1.has(`${p.query.query_id}\0${p.request[1].request_sha256}`)),
      );
      const prog: JudgePassProgress = {
        pass,
        maxTokens: JUDGE_MAX_TOKENS[pass],
        requests: todo.length,
        done: 0,
        failed: 0,
        state: todo.length ? 'running' : 'skipped',
      };
      passes.push(prog);
      o.onProgress?.({ ...prog });
      const cut = o.cutSignal;
      if (todo.length && o.waitUp && !(await o.waitUp()) && !cut?.aborted) o.log?.(`judge pass ${pass}: the judge server is not up; its requests will fail`);
      const newRequests = todo.filter((p) => !haveRequest.has(`${p.query.query_id}\0${pass}\0${p.request[pass].request_sha256}`));
      if (newRequests.length) await requests.append(newRequests.map((p) => JSON.stringify(p.request[pass]) + '\n').join(''), true);
      const width = Math.max(1, Math.min(o.batch[pass], todo.length));
      await runRequests(
        { cutSignal: cut },
        servers,
        todo.map((p) => ({ key: p.query.query_id, tasks: [{ key: p.query.query_id, group: p.query.query_id, cost: 1 }], p })),
        {
          execute: async (_task, { p }, server, requeues, channel) => {
            const req = p.request[pass];
            const res = await channel.send(server.index, req.body);
            // An answer: the server is reachable (the unreachable rule's clock for a given judge ends here, as for targets).
            if (res.ok) channel.answered(server.index);
            // Cut by the run's stop: not this query's failure. A server gone is a failure line (the retry pass asks again).
            if (!res.ok && channel.judge(server.index, res, requeues, false).action === 'requeue') return 'requeue';
            await record(p, pass, res, prog);
            o.onProgress?.({ ...prog });
            return 'done';
          },
        },
        // The seed's batch: `width` requests in flight, dealt round-robin over the servers.
        {
          slots: o.endpoints.map((_, i) => ({ capacity: Math.floor(width / o.endpoints.length) + (i < width % o.endpoints.length ? 1 : 0) })),
          policy: () => 'record',
          reach: o.reach,
          fleet: o.reach ? o.fleet : undefined,
        },
      );
      cut?.throwIfAborted();
      prog.state = todo.length === 0 ? 'skipped' : prog.failed ? 'failed' : 'done';
      o.onProgress?.({ ...prog });
    }
  } finally {
    await Promise.all([responses.close(), failures.close(), requests.close(), servers.close()]);
  }
  const left = planned.filter((p) => !counted.has(p.query.query_id)).map((p) => p.query.query_id);
  const report = {
    model_id: o.modelId,
    served_model: o.servedModel,
    queries: o.queries.length,
    requests: planned.length,
    no_judge_needed: o.queries.length - planned.length,
    reused,
    passes: passes.map((p) => ({ pass: p.pass, max_tokens: p.maxTokens, asked: p.requests, valid: p.done, failed: p.failed })),
    failures_left: left.length,
    failed_query_ids: left,
    prompts: Object.fromEntries(JUDGE_KINDS.map((k) => [k, { prompt_version: o.templates[k].prompt_version, prompt_sha256: o.templates[k].prompt_sha256 }])),
    schemas: Object.fromEntries(
      JUDGE_KINDS.map((k) => [k, { schema_version: JUDGE_SCHEMAS[k].schema_version, schema_sha256: JUDGE_SCHEMAS[k].schema_sha256 }]),
    ),
    complete: left.length === 0,
  };
  await writeFileAtomic(L.root, L.semanticReport, JSON.stringify(report, null, 1) + '\n');
  const ok = left.length === 0;
  const passText = passes.map((p) => `pass ${p.pass} (${p.maxTokens} tokens) ${p.done}/${p.requests} valid, ${p.failed} failed`).join('; ');
  return {
    ok,
    counted,
    line:
      `judge ${ok ? 'done' : 'FAILED'}: ${planned.length} requests, ${reused} reused; ${passText}` +
      `${ok ? '' : `; ${left.length} left without a valid response (see ${L.semanticFailures})`}`,
  };
}
