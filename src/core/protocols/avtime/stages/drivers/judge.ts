// Stage 4's driver: the judge server (launched or given) and both judge passes (./judgeStage.ts); when the
// run's judge has completed, the counted responses are read back from its artifacts instead.
import { InputError } from '../../../../errors';
import { readJsonl } from '../../../../package/jsonl';
import type { Prediction } from '../../normalize';
import { assignShards } from '../infer';
import { countedResponses, judgeResponseLineSchema, planJudge, runJudge, type JudgeResponseLine } from '../judgeStage';
import type { AvtimeServers } from '../servers';
import type { ServerHealth } from '../../../../runner/serverHealth';
import { startStageServers } from './stageServers';
import { stageIncomplete } from '../completeness';
import { StageFailed, type StageContext } from './context';
import { parseBoundedJson } from '../../../../io/boundedJson';
import { readFileUnder } from '../../../../containment/rootFs';

/** The response that counts per query_id. */
export async function judgeStage(c: StageContext, predictions: Map<string, Prediction>): Promise<Map<string, JudgeResponseLine>> {
  const { layout } = c.plan;
  const { queries, templates } = c.run;
  const st = c.status.stage('judge');
  // The run's own report, never through a link (refused with its path, exit 2).
  const text = await readFileUnder(layout.root, layout.semanticReport);
  const report = text === null ? null : (parseBoundedJson(text) as { complete?: boolean; model_id?: string; served_model?: string });
  if (report?.complete) {
    const planned = planJudge({ queries, predictions, templates, servedModel: report.served_model ?? '', modelId: report.model_id ?? c.plan.judgeId });
    const stored = (await readJsonl(layout.semanticResponses, judgeResponseLineSchema)).records.map((r) => r.value);
    st.state = 'skipped';
    return countedResponses(planned, stored);
  }
  if (!c.run.stages.includes('judge')) throw new InputError((await stageIncomplete('judge', layout, assignShards(c.run.inputs, c.run.groups)))!);
  return judge(c, predictions);
}

async function judge(c: StageContext, predictions: Map<string, Prediction>): Promise<Map<string, JudgeResponseLine>> {
  const { layout, opts } = c.plan;
  const st = c.status.stage('judge');
  st.state = 'running';
  let servers: AvtimeServers | null = null;
  let reach: ServerHealth | undefined;
  try {
    servers = await startStageServers('judge', c);
    const up = servers;
    reach = c.unreachable(up.fleet, !!c.plan.opts.judgeEndpoint);
    // One given judge server: the status shows the running pass as waiting while it is unreachable.
    if (reach && up.endpoints.length === 1) c.status.judgeReach = reach.unreachableOf.bind(reach);
    const res = await runJudge({
      layout,
      queries: c.run.queries,
      predictions,
      templates: c.run.templates,
      modelId: c.plan.judgeId,
      servedModel: up.servedModel,
      endpoints: up.endpoints,
      batch: { 1: opts.judgeBatch, 2: opts.judgeRetryBatch },
      log: c.log,
      clientOptions: c.hooks.clientOptions,
      cutSignal: c.cut,
      reach,
      fleet: up.fleet,
      waitUp: () => up.waitUntilUp(c.hooks.startTimeoutMs ?? 20 * 60_000, c.cut),
      onProgress: (p) => {
        const passes = c.status.status.judgePasses;
        const entry = { pass: p.pass, maxTokens: p.maxTokens, state: p.state, requests: p.requests, done: p.done, failed: p.failed };
        const i = passes.findIndex((x) => x.pass === p.pass);
        if (i >= 0) passes[i] = entry;
        else passes.push(entry);
        // done: valid answers so far; failed: of the current pass (pass 1's go to the retry pass).
        st.done = passes.reduce((a, x) => a + x.done, 0);
        st.failed = p.failed;
        st.todo = Math.max(0, p.requests - p.done - p.failed);
      },
    });
    c.say(res.line);
    st.state = res.ok ? 'done' : 'failed';
    if (!res.ok) throw new StageFailed(`${res.line}; no scores written`);
    return res.counted;
  } finally {
    c.status.judgeReach = null;
    reach?.close();
    await servers?.fleet.stop();
  }
}
