import * as assert from 'node:assert/strict';
import { cellState, dryRunJsonSchema, formatEta, fromDryRun, fromWorkerStatus, percent } from '../../src/core/protocols/fp/progress';
import { workerStatusSchema, type WorkerStatus } from '../../src/core/protocols/fp/status/statusSchema';

function status(over: Partial<WorkerStatus> = {}): WorkerStatus {
  return workerStatusSchema.parse({
    version: 1,
    pid: 123,
    runId: 'r1',
    startedAt: 't0',
    updatedAt: 't1',
    state: 'running',
    mode: 'pilot',
    benchmarks: ['MVBench', 'LVBench'],
    conditions: ['v_1', 'v_32'],
    message: null,
    totals: { total: 40, done: 12, todo: 25, inFlight: 2, failed: 3, addedThisRun: 5 },
    cells: [
      { benchmark: 'MVBench', condition: 'v_1', total: 10, done: 10, todo: 0, na: 0, reuse: 0, failed: 0, noVideo: 0 },
      { benchmark: 'MVBench', condition: 'v_32', total: 10, done: 2, todo: 7, na: 0, reuse: 0, failed: 0, noVideo: 1 },
      { benchmark: 'LVBench', condition: 'v_1', total: 10, done: 0, todo: 8, na: 0, reuse: 0, failed: 2, noVideo: 0 },
      { benchmark: 'LVBench', condition: 'v_32', total: 10, done: 0, todo: 10, na: 0, reuse: 4, failed: 0, noVideo: 0 },
    ],
    throughput: { requestsPerMin: 60, framesPerSec: 10 },
    etaSeconds: 125,
    servers: [{ index: 0, endpoint: 'http://127.0.0.1:8011', state: 'up', running: 3, waiting: 1, restarts: 0, message: null }],
    summary: null,
    ...over,
  });
}

describe('extension progress data', () => {
  it('groups worker cells by benchmark; finished counts CSV rows; no-video items are their own count, not failures', () => {
    const v = fromWorkerStatus(status(), true);
    assert.deepEqual(
      v.benchmarks.map((b) => b.benchmark),
      ['MVBench', 'LVBench'],
    );
    const mvb = v.benchmarks[0];
    assert.equal(mvb.total, 20);
    assert.equal(mvb.finished, 12);
    assert.equal(mvb.failed, 0);
    assert.equal(mvb.noVideo, 1);
    assert.equal(v.benchmarks[1].failed, 2);
    assert.deepEqual([v.failed, v.noVideo], [2, 1]);
    assert.equal(v.total, 40);
    assert.equal(v.finished, 12);
    assert.equal(v.etaSeconds, 125);
    assert.equal(v.servers[0].state, 'up');
  });

  it('counts units that failed in an earlier run as failed, not todo, in the live view as in the artifact view', () => {
    const live = fromWorkerStatus(
      status({
        cells: [{ benchmark: 'TimeScope', condition: 'v_fps2_s224', total: 10, done: 6, todo: 4, na: 0, reuse: 0, failed: 0, noVideo: 0, failedBefore: 2 }],
      }),
      true,
    );
    const artifacts = fromDryRun(
      dryRunJsonSchema.parse({
        rows: [{ benchmark: 'TimeScope', condition: 'v_fps2_s224', todo: 4, NA: 0, reuse: 0, done: 6, no_video: 0, context_refusals: 2, failed_before: 2 }],
        totals: {},
      }),
    );
    const [a] = live.benchmarks[0].cells;
    const [b] = artifacts.benchmarks[0].cells;
    assert.deepEqual([a.done, a.todo, a.failed], [6, 2, 2]);
    assert.deepEqual([a.total, a.done, a.todo, a.failed], [b.total, b.done, b.todo, b.failed]);
    // A status file written before the field existed reads as none failed before.
    assert.equal(status().cells[0].failedBefore, 0);
  });

  it("a run that stopped on its own shows why at the top: the server's words, what they mean, what to do", () => {
    assert.deepEqual(fromWorkerStatus(status(), true).stopLines, []);
    const v = fromWorkerStatus(
      status({
        state: 'failed',
        stopReason: {
          rule: 'same_in_a_row',
          kind: 'request',
          message: 'The file path /x must be a subpath of `--allowed-local-media-path` /y. None',
          meaning: 'symlinked package',
          action: 'run on realpath',
          server: 'http://127.0.0.1:8011',
          detail: 'fail-fast: 20 requests in a row',
        },
      }),
      false,
    );
    assert.deepEqual(v.stopLines, [
      'stopped on its own: fail-fast: 20 requests in a row',
      'the server said: The file path /x must be a subpath of `--allowed-local-media-path` /y. None (http://127.0.0.1:8011)',
      'likely: symlinked package',
      'do: run on realpath',
    ]);
  });

  it('a status that is not live shows no ETA and its servers as down', () => {
    const v = fromWorkerStatus(status({ state: 'done' }), false);
    assert.equal(v.live, false);
    assert.equal(v.etaSeconds, null);
    assert.deepEqual(
      v.servers.map((s) => [s.state, s.running]),
      [['down', null]],
    );
  });

  it('counts the dry run: NA and reuse rows are still to write, bad_meta failed, no_video its own count', () => {
    const d = dryRunJsonSchema.parse({
      rows: [
        { benchmark: 'MVBench', condition: 'v_128_s224', todo: 3, NA: 2, reuse: 0, done: 5, no_video: 1, bad_meta: 1, context_refusals: 0 },
        { benchmark: 'LVBench', condition: 'v_32_s448', todo: 0, NA: 0, reuse: 4, done: 1, no_video: 0, context_refusals: 0 },
      ],
      totals: {},
    });
    const v = fromDryRun(d);
    const [a, b] = v.benchmarks.map((x) => x.cells[0]);
    assert.deepEqual([a.total, a.done, a.todo, a.failed, a.noVideo], [12, 5, 5, 1, 1]);
    assert.equal(a.done + a.todo + a.failed + a.noVideo, a.total);
    assert.equal(cellState(a, false), 'failed');
    assert.equal(cellState({ ...a, failed: 0, todo: 0 }, false), 'done');
    assert.deepEqual([b.total, b.done, b.todo, b.reuse], [5, 1, 4, 4]);
    assert.equal(v.live, false);
    assert.equal(v.finished, 6);
  });

  it('counts units that failed before (failures.jsonl) as failed, not as todo', () => {
    const d = dryRunJsonSchema.parse({
      rows: [
        {
          benchmark: 'TimeScope',
          condition: 'v_fps2_s224',
          todo: 2,
          NA: 0,
          reuse: 0,
          done: 8,
          no_video: 0,
          bad_meta: 0,
          context_refusals: 2,
          failed_before: 2,
        },
      ],
    });
    const c = fromDryRun(d).benchmarks[0].cells[0];
    assert.deepEqual([c.total, c.done, c.todo, c.failed], [10, 8, 0, 2]);
    assert.equal(cellState(c, false), 'failed');
  });

  it('rejects a dry run that is not the SPEC §8 shape', () => {
    assert.equal(dryRunJsonSchema.safeParse({ rows: [{ benchmark: 'X', condition: 'v_1', todo: -1 }] }).success, false);
  });

  it('cell state: failures first, then all-NA, then done, then running only when live and moving', () => {
    const base = { benchmark: 'B', condition: 'c', total: 4, done: 0, todo: 4, na: 0, reuse: 0, failed: 0, noVideo: 0 };
    assert.equal(cellState({ ...base, failed: 1, todo: 3 }, true), 'failed');
    assert.equal(cellState({ ...base, na: 4, todo: 0, done: 4 }, false), 'na');
    assert.equal(cellState({ ...base, done: 4, todo: 0 }, true), 'done');
    assert.equal(cellState({ ...base, done: 1, todo: 3 }, true), 'running');
    assert.equal(cellState({ ...base, done: 1, todo: 3 }, false), 'todo');
    assert.equal(cellState(base, true), 'todo');
  });

  it('percent floors, and an empty cell is complete', () => {
    assert.equal(percent(199, 200), 99);
    assert.equal(percent(0, 0), 100);
  });

  it('formats an ETA', () => {
    assert.equal(formatEta(null), '');
    assert.equal(formatEta(59), '59s');
    assert.equal(formatEta(125), '2m 5s');
    assert.equal(formatEta(3725), '1h 2m');
  });
});
