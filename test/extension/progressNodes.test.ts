import { defaultRunRoot } from '../../src/core/runner/runRoot';
import * as assert from 'node:assert/strict';
import { z } from 'zod';
import type { AvtimeRunView } from '../../src/core/protocols/avtime/progress';
import { PROTOCOLS } from '../../src/core/protocols/registry';
import { type ProgressSnapshot, type RunProtocol } from '../../src/core/protocols/types';
import { workerStatusSchema, type WorkerStatus } from '../../src/core/protocols/fp/status/statusSchema';
import { avtimeSection } from '../../src/extension/protocols/avtime/avtimeTreeRows';
import { fpSection } from '../../src/extension/protocols/fp/fpTreeRows';
import { classifyBottleneck } from '../../src/core/runner/bottleneck';
import { fromWorkerStatus } from '../../src/core/protocols/fp/progress';
import { NodeStore, treeRoots, type TreeNode, type TreeRow } from '../../src/extension/progressNodes';
import { parseWorkerArgs, runWorker } from '../../src/worker/dispatch';
import { JOB_RUNNERS } from '../../src/worker/jobRunners';

function status(cells: WorkerStatus['cells']): WorkerStatus {
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
    cells,
    throughput: { requestsPerMin: 60, framesPerSec: 10 },
    etaSeconds: null,
    servers: [{ index: 0, endpoint: 'http://127.0.0.1:8011', state: 'up', running: 3, waiting: 1, restarts: 0, message: null }],
    summary: null,
  });
}

const cell = (benchmark: string, condition: string, done: number) => ({
  benchmark,
  condition,
  total: 10,
  done,
  todo: 10 - done,
  na: 0,
  reuse: 0,
  failed: 0,
  noVideo: 0,
  failedBefore: 0,
});

function avView(runId: string, infer: number): AvtimeRunView {
  return {
    runId,
    outputRoot: `/o/${runId}`,
    source: 'worker',
    live: true,
    state: 'running',
    canonical: true,
    startedAt: 't0',
    stages: [
      { name: 'inputs', state: 'done', done: 2, todo: 0, failed: 0 },
      { name: 'infer', state: 'running', done: infer, todo: 2 - infer, failed: 0 },
    ],
    shards: [{ shard: 0, endpoint: null, state: 'running', expected: 2, written: infer, failed: 0 }],
    passes: [],
    summary: null,
    scores: null,
  };
}

/** The whole tree as extension.ts builds it from the registry: FP from its view, AVTime from its runs. */
function rows(fpCells: WorkerStatus['cells'], runs: AvtimeRunView[]): TreeRow[] {
  const fp = PROTOCOLS.get('fp')!;
  const av = PROTOCOLS.get('avtime')!;
  return treeRoots([fpSection({ message: undefined, view: fromWorkerStatus(status(fpCells), true) }, fp), avtimeSection(runs, av)]);
}

function allNodes(store: NodeStore): TreeNode[] {
  const out: TreeNode[] = [];
  const walk = (n: TreeNode) => (out.push(n), n.children.forEach(walk));
  store.roots.forEach(walk);
  return out;
}

describe('progress tree nodes', () => {
  const cells = [cell('MVBench', 'v_1', 2), cell('MVBench', 'v_32', 0), cell('LVBench', 'v_1', 5)];

  it('one group per protocol of the registry, in its order, with the rows their views give', () => {
    const store = new NodeStore();
    store.update(rows(cells, [avView('a', 0)]));
    assert.deepEqual(
      store.roots.map((n) => n.id),
      ['group:fp', 'group:avtime'],
    );
    assert.deepEqual(
      store.roots[0].children.map((n) => n.id),
      ['servers', 'bench:MVBench', 'bench:LVBench'],
    );
    assert.match(store.get('cell:MVBench:v_32')!.row.aria!, /^MVBench × v_32: todo, 0%, 0 done, 10 todo/);
    assert.deepEqual(
      store.roots[1].children.map((n) => n.id),
      ['avtime:/o/a'],
    );
  });

  it('a node is the same object across reads while its row exists, its row replaced', () => {
    const store = new NodeStore();
    store.update(rows(cells, [avView('a', 0)]));
    const before = new Map(allNodes(store).map((n) => [n.id, n]));
    store.update(rows([cell('MVBench', 'v_1', 3), ...cells.slice(1)], [avView('a', 1)]));
    for (const n of allNodes(store)) assert.equal(n, before.get(n.id), n.id);
    assert.match(store.get('cell:MVBench:v_1')!.row.description!, /^30% · 3 done/);
  });

  it('fires only the topmost nodes that changed: a cell moves → its benchmark; a shard moves → its stage; nothing → nothing', () => {
    const store = new NodeStore();
    store.update(rows(cells, [avView('a', 0), avView('b', 0)]));
    assert.deepEqual(store.update(rows(cells, [avView('a', 0), avView('b', 0)])), { all: false, nodes: [] });
    const c1 = store.update(rows([cell('MVBench', 'v_1', 3), ...cells.slice(1)], [avView('a', 0), avView('b', 0)]));
    assert.equal(c1.all, false);
    assert.deepEqual(
      c1.nodes.map((n) => n.id),
      ['bench:MVBench'],
    );
    const c2 = store.update(rows([cell('MVBench', 'v_1', 3), ...cells.slice(1)], [avView('a', 0), avView('b', 1)]));
    assert.deepEqual(
      c2.nodes.map((n) => n.id),
      ['avtime:/o/b:stage:infer'],
    );
    // A run appearing changes the group's children (and its "N runs"): the group, not the whole tree.
    const c3 = store.update(rows([cell('MVBench', 'v_1', 3), ...cells.slice(1)], [avView('a', 0), avView('b', 1), avView('c', 0)]));
    assert.deepEqual(
      c3.nodes.map((n) => n.id),
      ['group:avtime'],
    );
    // The last AVTime run going takes its group away: the roots changed.
    assert.equal(store.update(rows(cells, [])).all, true);
  });

  it("getParent: every node is among its parent's children, and roots have none", () => {
    const store = new NodeStore();
    store.update(rows(cells, [avView('a', 1)]));
    const nodes = allNodes(store);
    assert.ok(nodes.length > 12);
    for (const n of nodes) {
      if (!n.parent) assert.ok(store.roots.includes(n), n.id);
      else assert.ok(n.parent.children.includes(n), n.id);
    }
    assert.throws(
      () =>
        store.update([
          { id: 'x', label: 'x', icon: 'info', collapsible: 'none', children: [] },
          { id: 'x', label: 'y', icon: 'info', collapsible: 'none', children: [] },
        ]),
      /used twice/,
    );
  });
});

describe('a third protocol: a folder, one registry line and its worker runner, nothing else', () => {
  const ran: unknown[] = [];
  const jobSchema = z.object({ root: z.string(), n: z.number().int() });
  const fake: RunProtocol<z.infer<typeof jobSchema>, null> = {
    id: 'tally',
    title: 'Tally',
    findRoots: async (dir) => [`${dir}/t1`],
    runRoot: (root) => defaultRunRoot(root, 'tally-status.json'),
    readProgress: async (root): Promise<ProgressSnapshot<null>> => ({
      protocol: 'tally',
      root,
      runId: 't1',
      live: true,
      state: 'running',
      summary: null,
      detail: null,
      groups: [
        {
          key: 'count',
          label: 'count',
          state: 'running',
          done: 3,
          todo: 2,
          failed: 1,
          rows: [{ key: 'a', label: 'part a', state: 'done', done: 3, todo: 0, failed: 0 }],
        },
      ],
    }),
    job: { schema: jobSchema },
    report: async () => ({}),
  };
  const registry = PROTOCOLS.with(fake);
  const runners = { ...JOB_RUNNERS, tally: async (job: unknown) => (ran.push(job), 0) };

  it('the worker dispatches --protocol tally --job JSON to it, the job checked by its schema', async () => {
    const err: string[] = [];
    assert.equal(await runWorker(['--protocol', 'tally', '--job', '{"root":"/w/t1","n":2}'], registry, runners, (s) => err.push(s)), 0);
    assert.deepEqual(ran, [{ root: '/w/t1', n: 2 }]);
    assert.equal(await runWorker(['--protocol', 'tally', '--job', '{"root":"/w/t1"}'], registry, runners, (s) => err.push(s)), 2);
    assert.match(err.join(''), /bad tally job: .*"n"/s);
    assert.equal(await runWorker(['--protocol', 'tally', '--job', '{}'], PROTOCOLS, runners, (s) => err.push(s)), 2);
    assert.match(err.join(''), new RegExp(`no protocol 'tally' \\(this build has: ${PROTOCOLS.ids.join(', ')}\\)`));
    assert.equal(await runWorker(['--protocol', 'tally', '--job', '{"root":"/w/t1","n":2}'], registry, JOB_RUNNERS, (s) => err.push(s)), 2);
    assert.match(err.join(''), /'tally' has no job runner/);
    assert.equal(ran.length, 1);
  });

  it('the worker takes only --protocol ID --job JSON: the old --options / --avtime forms are usage errors', () => {
    const job = parseWorkerArgs(['--protocol', 'fp', '--job', JSON.stringify({ package: '/p' })], registry);
    assert.ok(!('usage' in job) && job.protocol.id === 'fp' && (job.job as { workers: number }).workers === 6);
    assert.ok('usage' in parseWorkerArgs(['--options', JSON.stringify({ package: '/p' })], registry));
    assert.ok('usage' in parseWorkerArgs(['--avtime', JSON.stringify({ verb: 'run', options: {}, outputRoot: '/o', runId: 'r' })], registry));
    assert.ok('usage' in parseWorkerArgs(['--protocol', 'fp'], registry));
    assert.ok('usage' in parseWorkerArgs([], registry));
  });

  it('items with no video in the package are their own grey count ("12 no video"), not failures: the benchmark is done, not failed', () => {
    const st = status([
      { ...cell('MVBench', 'v_1', 8), todo: 0, noVideo: 2 },
      { ...cell('MVBench', 'v_32', 8), todo: 0, noVideo: 2 },
      { ...cell('LVBench', 'v_1', 8), todo: 1, failed: 1 },
    ]);
    const section = fpSection({ message: undefined, view: fromWorkerStatus(st, false) }, PROTOCOLS.get('fp')!);
    const mvb = section.rows.find((r) => r.id === 'bench:MVBench')!;
    assert.equal(mvb.icon, 'done');
    assert.equal(mvb.description, '80% · 16/20 · 4 no video');
    assert.match(mvb.aria!, /, 0 failed, 4 no video$/);
    const v1 = mvb.children.find((r) => r.id === 'cell:MVBench:v_1')!;
    assert.equal(v1.icon, 'done');
    assert.equal(v1.contextValue, 'cell');
    assert.equal(v1.description, '80% · 8 done · 2 no video');
    // A real failure still reads as one.
    const lvb = section.rows.find((r) => r.id === 'bench:LVBench')!;
    assert.equal(lvb.icon, 'failed');
    assert.match(lvb.description!, / · 1 failed$/);
  });

  it("a server's row names its bottleneck, with the reason and the knob in its tooltip", () => {
    const st = status([cell('MVBench', 'v_1', 2)]);
    const bottleneck = classifyBottleneck({
      wallS: 100,
      engine: null,
      samples: { total: 10, busy: 10, runningSum: 30, waitingSum: 20 },
      maxNumSeqs: 32,
      client: { requests: 50, latencyS: 100, slotWaitS: 0, framesWaitS: 0, inFlightS: 100, capacity: 6 },
    });
    st.servers = [{ ...st.servers[0], bottleneck }];
    const section = fpSection({ message: undefined, view: fromWorkerStatus(st, true) }, PROTOCOLS.get('fp')!);
    const server = section.rows.find((r) => r.id === 'servers')!.children[0];
    assert.match(server.description!, / · GPU-bound$/);
    assert.match(server.tooltip!, /GPU-bound: .*\nturn: /);
  });
});
