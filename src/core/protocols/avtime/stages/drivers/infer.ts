// Stage 2's driver: the target servers (launched or given), the pre-flight on each server's first input, then
// every shard (./infer.ts); the status follows each shard. A canonical run's started shards never resume.
import { realpathSync } from 'node:fs';
import * as path from 'node:path';
import { InputError } from '../../../../errors';
import { assignShards, runInference } from '../infer';
import { makeTargetPlanner, preflightStatus, runTargetPreflight } from '../preflight';
import type { AvtimeServers } from '../servers';
import type { ServerHealth } from '../../../../runner/serverHealth';
import { startStageServers } from './stageServers';
import { inferComplete, inferRefusal } from '../completeness';
import { StageFailed, type StageContext } from './context';
import { inferFailureAdvice, newRunWords } from '../stopAdvice';

/** The folder every target video lies under (real paths): vLLM's --allowed-local-media-path. */
export function mediaRoot(videos: readonly string[]): string {
  const dirs = videos.map((v) => path.dirname(realpathSync(v)));
  let root = dirs[0] ?? '/';
  for (const d of dirs) while (root !== '/' && d !== root && !d.startsWith(root + path.sep)) root = path.dirname(root);
  return root;
}

export async function inferStage(c: StageContext): Promise<void> {
  const { layout, opts, canonical } = c.plan;
  const { inputs, prompt, groups } = c.run;
  const st = c.status.stage('infer');
  const shards = assignShards(inputs, groups);
  if ((await inferComplete(layout, shards)) === null) {
    st.state = 'skipped';
    return;
  }
  // Checked before the lock too (a refusal writes nothing); again here, under the lock, for what changed since.
  const refusal = await inferRefusal(layout, shards, canonical, newRunWords(!!opts.outputRoot));
  if (refusal) throw new InputError(refusal);
  st.state = 'running';
  st.todo = inputs.length;
  c.status.status.shards = shards.map((rows, k) => ({ shard: k, endpoint: '', state: 'todo', expected: rows.length, written: 0, failed: 0 }));
  let servers: AvtimeServers | null = null;
  let reach: ServerHealth | undefined;
  try {
    servers = await startStageServers('target', c, mediaRoot(inputs.map((t) => t.videos[0])));
    // --keep-going: rows are not written off while every given server is gone (a canonical shard never resumes).
    if (!canonical) reach = c.unreachable(servers.fleet, !!opts.targetEndpoints?.length);
    // Shard k's server is server k (one group -> one shard): the status shows a shard whose server is unreachable as waiting.
    if (reach) c.status.reach = reach.unreachableOf.bind(reach);
    const planFor = makeTargetPlanner(opts.audioInVideo);
    // SPEC-AVTIME §3 pre-flight: each server's first input, counted against the reference, before any shard.
    const pre = await runTargetPreflight({
      layout,
      firsts: shards.map((rows) => rows[0]),
      endpoints: servers.endpoints,
      model: servers.servedModel,
      prompt,
      audioInVideo: opts.audioInVideo,
      planFor,
      clientOptions: c.hooks.clientOptions,
      signal: c.cut,
    });
    c.status.status.preflight = preflightStatus(pre.record);
    c.say(pre.line);
    if (!pre.ok) {
      st.state = 'failed';
      throw new StageFailed(`${pre.line}; nothing later runs`);
    }
    const res = await runInference({
      layout,
      inputs,
      prompt,
      model: servers.servedModel,
      endpoints: servers.endpoints,
      audioInVideo: opts.audioInVideo,
      planFor,
      canonical,
      concurrency: opts.targetBatch,
      log: c.log,
      clientOptions: c.hooks.clientOptions,
      cutSignal: c.cut,
      reach,
      fleet: servers.fleet,
      onProgress: (p) => {
        c.status.status.shards[p.shard] = { shard: p.shard, endpoint: p.endpoint, state: p.state, expected: p.expected, written: p.written, failed: p.failed };
        const all = c.status.status.shards;
        st.done = all.reduce((a, s) => a + s.written, 0);
        st.failed = all.reduce((a, s) => a + s.failed, 0);
        st.todo = inputs.length - st.done;
      },
    });
    c.say(res.line);
    st.state = res.ok ? 'done' : 'failed';
    if (!res.ok) {
      const urls = servers.endpoints.map((e) => e.url);
      const first = res.shards.flatMap((s) => s.errors.map((e) => ({ ...e, shard: s.shard, endpoint: urls[s.shard] })))[0] ?? null;
      const run = { canonical, continuing: c.plan.continuing, runId: layout.runId, outputRootGiven: !!opts.outputRoot };
      throw new StageFailed(`${res.line}; nothing later runs. ${inferFailureAdvice(first, run)}`);
    }
  } finally {
    c.status.reach = null;
    reach?.close();
    await servers?.fleet.stop();
  }
}
