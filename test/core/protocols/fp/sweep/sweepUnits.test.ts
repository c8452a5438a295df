// Frames × Pixels's part of the sweep, without servers: jobs group a video's requests by condition,
// a failed source takes its reuse rows down with it, the tokens left shrink as units resolve, and a
// unit's answer becomes its row and its dependents' reuse rows.
import { strict as assert } from 'node:assert';
import type { FailureRecord, RawRecord, TimingRecord } from '../../../../../src/core/protocols/fp/package/schemas';
import { CellBook } from '../../../../../src/core/protocols/fp/sweep/cells';
import type { FailureLog, TimingLog } from '../../../../../src/core/protocols/fp/sweep/dataLogs';
import type { RequestChannel } from '../../../../../src/core/runner/requestChannel';
import type { ResultsWriter } from '../../../../../src/core/protocols/fp/sweep/resultsWriter';
import type { WorkPlan, WorkUnit } from '../../../../../src/core/protocols/fp/plan';
import { FpOutcomes } from '../../../../../src/core/protocols/fp/sweep/fpOutcomes';
import { FpUnits, videoJobs } from '../../../../../src/core/protocols/fp/sweep/fpUnits';
import type { SendPlan } from '../../../../../src/core/protocols/fp/rules/plan';

const item = (id: string) => ({ item_id: id, question: 'Q?', options: ['A. a', 'B. b'], answer: 'B' }) as unknown as WorkUnit['item'];
function unit(id: string, condition: string, status: WorkUnit['status'], tokens?: number): WorkUnit {
  return { benchmark: 'b', item: item(id), condition, status, hash: 'h1', predictedPromptTokens: tokens };
}

function fixture() {
  const src = unit('i1', 'v_32', 'todo', 1000);
  const dep = unit('i1', 'v_32_480', 'reuse');
  dep.reuse = { fromCondition: 'v_32', stored: null, from: src };
  src.dependents = [dep];
  const blind = unit('i2', 'v_blind', 'todo', 100);
  const plan = {
    layout: null,
    benchmarks: ['b'],
    conditions: ['v_32', 'v_32_480', 'v_blind'],
    units: [src, dep, blind],
    videos: [{ hash: 'h1', units: [src, blind] }],
    counts: new Map(),
  } as unknown as WorkPlan;
  const rows: RawRecord[] = [];
  const fails: FailureRecord[] = [];
  const timings: TimingRecord[] = [];
  const writer = { added: { ok: 0, NA: 0, reuse: 0 }, write: async (r: RawRecord) => void rows.push(r) } as unknown as ResultsWriter;
  const failures = { write: async (r: FailureRecord) => void fails.push(r) } as unknown as FailureLog;
  const timing = { write: async (r: TimingRecord) => void timings.push(r) } as unknown as TimingLog;
  const book = new CellBook(plan, new Map([['b', 2]]), 0);
  const outcomes = new FpOutcomes(plan, { writer, failures, timing, book, runId: 'r1' });
  return { src, dep, blind, plan, rows, fails, timings, outcomes, book };
}

describe('fp sweep units', () => {
  it('one job per video, its tasks grouped by condition, costed by predicted tokens', () => {
    const { plan } = fixture();
    const [job] = videoJobs(plan.videos);
    assert.equal(job.key, 'h1');
    assert.deepEqual(
      job.tasks.map((t) => [t.group.split('\u0000')[1], t.cost]),
      [
        ['v_32', 1000],
        ['v_blind', 100],
      ],
    );
  });

  it('a failed source fails its reuse rows with it; the cells tokens left count only unresolved requests', async () => {
    const { src, fails, outcomes, book } = fixture();
    const left = () => book.progress().reduce((s, c) => s + (c.remainingTokens ?? 0), 0);
    assert.equal(left(), 1100);
    await outcomes.fail(src, 'request', 'HTTP 400', 'http://127.0.0.1:1', 2);
    assert.equal(left(), 100);
    assert.deepEqual(
      fails.slice(0, 2).map((f) => [f.condition, f.attempts, f.message]),
      [
        ['v_32', 2, 'HTTP 400'],
        ['v_32_480', 0, 'reuses v_32, which failed: HTTP 400'],
      ],
    );
  });

  it('an answer becomes the unit row and its dependents reuse rows; a failure goes to the log', async () => {
    const { plan, rows, fails, outcomes } = fixture();
    const [job] = videoJobs(plan.videos);
    const sendPlan = {
      indices: [],
      timestamps: [],
      width: null,
      height: null,
      shortSide: null,
      tokensPerFrame: null,
      capped: false,
      cappedCtx: false,
      nGrid: null,
      nMax: null,
    } as unknown as SendPlan;
    job.plans = new Map([
      ['v_32', sendPlan],
      ['v_blind', sendPlan],
    ]);
    job.prepared = { decodeS: 0, get: () => ({ ok: true, decodeS: 0.5, nFrames: 0, images: async () => [] }), release: () => undefined };
    let answers = 0;
    const channel = {
      send: async (_i: number, body: { model: string }) =>
        body.model === 'm'
          ? answers++ === 0
            ? { ok: true, text: 'B', usage: { prompt_tokens: 900, completion_tokens: 1, total_tokens: 901 }, latency_s: 1, finishReason: 'stop', attempts: 1 }
            : { ok: false, kind: 'request', message: 'HTTP 400', attempts: 1, status: 400 }
          : assert.fail('model'),
      answered: () => undefined,
      judge: () => ({ action: 'fail', contextTooSmall: false }),
    } as unknown as RequestChannel;
    const seen: number[] = [];
    const units = new FpUnits(plan.layout, null as never, outcomes, {
      servedModel: 'm',
      channel,
      videoDecoded: () => undefined,
      answered: (_n, t) => seen.push(t),
      interrupted: () => assert.fail('no interruption'),
    });
    const server = { index: 0, endpoint: 'http://127.0.0.1:1', capacity: 1 };
    assert.equal(await units.execute(job.tasks[0], job, server, 0), 'done');
    assert.equal(await units.execute(job.tasks[1], job, server, 1), 'done');
    assert.deepEqual(
      rows.map((r) => [r.condition, r.status, r.pred, r.correct]),
      [
        ['v_32', 'ok', 'B', 1],
        ['v_32_480', 'reuse', 'B', 1],
      ],
    );
    assert.deepEqual(
      fails.map((f) => [f.condition, f.attempts]),
      [['v_blind', 2]],
    );
    assert.deepEqual(seen, [900]);
  });
});
