import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { runJudge } from '../../../../../src/core/protocols/avtime/stages/judgeStage';
import { AvtimeRunLayout } from '../../../../../src/core/protocols/avtime/stages/layout';
import { judgeTemplate } from '../../../../../src/core/protocols/avtime/judge/prompts';
import { JUDGE_KINDS, type JudgeKind } from '../../../../../src/core/protocols/avtime/judge/schemas';
import type { Prediction } from '../../../../../src/core/protocols/avtime/normalize';
import type { Query } from '../../../../../src/core/protocols/avtime/queries';
import { tmpDir } from './fixtures';
import { judgeStub } from './benchFixture';

const templates = Object.fromEntries(JUDGE_KINDS.map((k) => [k, judgeTemplate(k)])) as Record<JudgeKind, ReturnType<typeof judgeTemplate>>;
const prediction: Prediction = {
  id: 'rec_0',
  video_id: 'v',
  duration_ms: 10_000,
  warnings: [],
  events: [
    { start_pct: 0, end_pct: 9, start_ms: 0, end_ms: 1000, caption: 'a dog barks' },
    { start_pct: 10, end_pct: 19, start_ms: 1000, end_ms: 2000, caption: 'music' },
  ],
};
const queries: Query[] = [
  { query_id: 'q1', video_id: 'v', axis: 'A', direction: 'e2t', reference_caption: 'dog', reference_interval_ms: [0, 500] },
  { query_id: 'q2', video_id: 'v', axis: 'V', direction: 't2e', time_ms: 100, reference_captions: ['dog'] },
];

/** What both cases judge: one prediction, its two queries, the judge's ids. */
const judgeRun = { queries, predictions: new Map([['v', prediction]]), templates, modelId: 'judge-id', servedModel: 'judge-model' };

describe('avtime stages: the judge stage and a restarted judge server', () => {
  it("reads the server's signal live and waits for it to be up before each pass: a crash in pass 1 is answered in the retry pass", async () => {
    const stub = await judgeStub();
    try {
      const dead = new AbortController();
      dead.abort(new Error('judge0 restarting'));
      let current = dead.signal; // pass 1: the incarnation that crashed
      const waits: number[] = [];
      const layout = new AvtimeRunLayout(path.join(tmpDir('judge'), 'out'), 'r1');
      const res = await runJudge({
        ...judgeRun,
        layout,
        endpoints: [
          {
            url: stub.url,
            apiKey: null,
            get signal() {
              return current;
            },
          },
        ],
        batch: { 1: 2, 2: 2 },
        waitUp: async () => {
          waits.push(waits.length + 1);
          if (waits.length === 2) current = new AbortController().signal; // restarted before the retry pass
          return true;
        },
        clientOptions: { maxRetries: 0 },
      });
      assert.equal(res.ok, true, res.line);
      assert.deepEqual(waits, [1, 2], 'waited before each pass');
      assert.match(res.line, /pass 1 \(512 tokens\) 0\/2 valid, 2 failed; pass 2 \(4096 tokens\) 2\/2 valid, 0 failed/);
      assert.deepEqual(
        stub.bodies.map((b) => b.max_tokens),
        [4096, 4096],
        'pass 1 never reached the dead server',
      );
    } finally {
      await stub.close();
    }
  });

  it('tells the unreachable rule of each answer: a given judge that was lost and answers again is reachable (its clock ends)', async () => {
    const stub = await judgeStub();
    try {
      const told: string[] = [];
      const layout = new AvtimeRunLayout(path.join(tmpDir('judge-reach'), 'out'), 'r1');
      const res = await runJudge({
        ...judgeRun,
        layout,
        endpoints: [{ url: stub.url, apiKey: null, signal: new AbortController().signal }],
        batch: { 1: 2, 2: 2 },
        clientOptions: { maxRetries: 0 },
        reach: {
          lostRequest: (i, m) => told.push(`lost ${i}: ${m}`),
          answered: (i) => told.push(`answered ${i}`),
          allLost: () => false,
        },
      });
      assert.equal(res.ok, true, res.line);
      // Without it the rule's clock, started by a moment's refusal, ran on while the judge answered, and stopped the run.
      assert.deepEqual(told, ['answered 0', 'answered 0']);
    } finally {
      await stub.close();
    }
  });
});
