// The scheduler's options for vLLM's caches (issue 17): a video's other requests held behind its first one
// (warmVideos), a bound on the videos a server has open (maxOpenVideos), and a per-server budget of predicted
// prompt tokens in flight (tokenBudget). Every request is held by the test and released explicitly: no timing.
import { strict as assert } from 'node:assert';
import { Scheduler, type SchedTask, type SchedJob, type SchedulerOptions, type TaskOutcome } from '../../../src/core/runner/scheduler';

interface Held {
  task: SchedTask;
  server: number;
  release(o?: TaskOutcome): void;
}

const settle = () => new Promise<void>((r) => setImmediate(r));

function video(key: string, groups: number, items: number, cost = (g: number) => 10 * (groups - g)): SchedJob {
  const tasks: SchedTask[] = [];
  for (let g = 0; g < groups; g++) for (let i = 0; i < items; i++) tasks.push({ key: `${key}/g${g}/i${i}`, group: `${key}/g${g}`, cost: cost(g) });
  return { key, tasks };
}

function harness(opts: SchedulerOptions) {
  const held: Held[] = [];
  const sent: { key: string; server: number }[] = [];
  const s = new Scheduler<SchedJob>(opts, {
    prepare: async () => true,
    execute: (task, _v, server) =>
      new Promise<TaskOutcome>((resolve) => {
        sent.push({ key: task.key, server: server.index });
        held.push({ task, server: server.index, release: (o = 'done') => resolve(o) });
      }),
  });
  const releaseAll = async () => {
    while (held.length) {
      held.splice(0).forEach((h) => h.release());
      await settle();
      await settle();
    }
  };
  return { s, held, sent, releaseAll };
}

describe('runner scheduler: options for vLLM caches', () => {
  it('warmVideos: a video sends nothing else until its first request has finished', async () => {
    const h = harness({ servers: [{ endpoint: 's0', capacity: 8 }], prefetch: 4, prepConcurrency: 1, warmVideos: true });
    const done = h.s.run([video('v0', 3, 2)]);
    await settle();
    await settle();
    assert.deepEqual(
      h.held.map((x) => x.task.key),
      ['v0/g0/i0'],
      'only the first (costliest) request of the video is out',
    );
    h.held.shift()!.release();
    await settle();
    await settle();
    assert.deepEqual(h.held.map((x) => x.task.key).sort(), ['v0/g1/i0', 'v0/g2/i0', 'v0/g0/i1'].sort(), 'then the other groups, and the group’s followers');
    await h.releaseAll();
    await done;
    assert.equal(h.sent.length, 6);
  });

  it('warmVideos: a first request that comes back requeued keeps the gate closed until it is done', async () => {
    const h = harness({ servers: [{ endpoint: 's0', capacity: 8 }], prefetch: 4, prepConcurrency: 1, warmVideos: true });
    const done = h.s.run([video('v0', 2, 1)]);
    await settle();
    await settle();
    h.held.shift()!.release('requeue');
    await settle();
    await settle();
    assert.deepEqual(
      h.held.map((x) => x.task.key),
      ['v0/g0/i0'],
      'the same first request again, alone',
    );
    await h.releaseAll();
    await done;
  });

  it('without warmVideos (the default), a video’s groups start together as before', async () => {
    const h = harness({ servers: [{ endpoint: 's0', capacity: 8 }], prefetch: 4, prepConcurrency: 1 });
    const done = h.s.run([video('v0', 3, 1)]);
    await settle();
    await settle();
    assert.equal(h.held.length, 3);
    await h.releaseAll();
    await done;
  });

  it('maxOpenVideos: a server at the bound pulls no other video, then pulls when one finishes', async () => {
    const h = harness({ servers: [{ endpoint: 's0', capacity: 8 }], prefetch: 8, prepConcurrency: 4, maxOpenVideos: 2 });
    const done = h.s.run([video('v0', 1, 1), video('v1', 1, 1), video('v2', 1, 1), video('v3', 1, 1)]);
    await settle();
    await settle();
    const videosOut = () => new Set(h.held.map((x) => x.task.key.split('/')[0]));
    assert.equal(videosOut().size, 2, `two videos open, got ${[...videosOut()]}`);
    h.held.shift()!.release();
    await settle();
    await settle();
    assert.equal(videosOut().size, 2, 'one finished, one more pulled');
    await h.releaseAll();
    await done;
    assert.equal(h.sent.length, 4);
  });

  it('tokenBudget: predicted prompt tokens in flight stay within a server’s budget; one request may always go', async () => {
    // Costs 50 (g0), 40 (g1), 30, 20, 10; a budget of 60 holds g0 alone, then 40 + 20 …
    const h = harness({ servers: [{ endpoint: 's0', capacity: 8, tokenBudget: 60 }], prefetch: 4, prepConcurrency: 1, warmGroups: false });
    const v = video('v0', 5, 1);
    const big: SchedJob = { key: 'big', tasks: [{ key: 'big/g0/i0', group: 'big/g0', cost: 500 }] };
    const done = h.s.run([v, big]);
    let maxCost = 0;
    let maxCount = 0;
    for (let round = 0; round < 20; round++) {
      await settle();
      await settle();
      if (!h.held.length) break;
      const inflight = h.held.reduce((s, x) => s + x.task.cost, 0);
      if (h.held.length > 1) maxCost = Math.max(maxCost, inflight);
      maxCount = Math.max(maxCount, h.held.length);
      h.held.shift()?.release();
    }
    await h.releaseAll();
    await done;
    assert.equal(h.sent.length, 6, 'every request went, the one over the whole budget alone');
    assert.ok(maxCost <= 60, `in flight ${maxCost} predicted tokens > 60`);
    assert.ok(maxCount >= 2, 'small requests still go together');
  });
});
