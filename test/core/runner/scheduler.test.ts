import { strict as assert } from 'node:assert';
import { Scheduler, type SchedTask, type SchedJob } from '../../../src/core/runner/scheduler';

interface V extends SchedJob {
  n: number;
}

function makeVideos(nVideos: number, groups: number, items: number): V[] {
  const out: V[] = [];
  for (let v = 0; v < nVideos; v++) {
    const tasks: SchedTask[] = [];
    for (let g = 0; g < groups; g++) for (let i = 0; i < items; i++) tasks.push({ key: `v${v}/g${g}/i${i}`, group: `v${v}/g${g}`, cost: 1 + g + (v % 3) });
    out.push({ key: `v${v}`, tasks, n: v });
  }
  return out;
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('runner scheduler', () => {
  it('runs every task once, keeps each server within its concurrency, sends a video to one server', async () => {
    const seen = new Map<string, number>();
    const inflight = [0, 0, 0];
    let maxSeen = [0, 0, 0];
    const videoServer = new Map<string, Set<number>>();
    const s = new Scheduler<V>(
      { servers: [0, 1, 2].map((i) => ({ endpoint: `s${i}`, capacity: 3 })), prefetch: 4, prepConcurrency: 2 },
      {
        prepare: async () => {
          await tick(1);
          return true;
        },
        execute: async (task, video, server) => {
          inflight[server.index]++;
          maxSeen = maxSeen.map((m, i) => Math.max(m, inflight[i]));
          (videoServer.get(video.key) ?? videoServer.set(video.key, new Set()).get(video.key)!).add(server.index);
          await tick(2 + (task.cost % 3));
          inflight[server.index]--;
          seen.set(task.key, (seen.get(task.key) ?? 0) + 1);
          return 'done';
        },
      },
    );
    const videos = makeVideos(20, 3, 4);
    await s.run(videos);
    assert.equal(seen.size, 20 * 3 * 4);
    assert.ok([...seen.values()].every((n) => n === 1));
    assert.ok(
      maxSeen.every((m) => m <= 3),
      `max in flight ${maxSeen}`,
    );
    assert.ok(
      maxSeen.every((m) => m === 3),
      `every server reached its concurrency: ${maxSeen}`,
    );
    // tail stealing may move a not-yet-started group to another server at the end; nothing else splits
    const multi = [...videoServer.values()].filter((set) => set.size > 1).length;
    assert.ok(multi <= 3, `${multi} videos were split across servers`);
  });

  it("sends a group's first request alone, then the rest", async () => {
    const log: string[] = [];
    const s = new Scheduler<V>(
      { servers: [{ endpoint: 's0', capacity: 4 }], prefetch: 2, prepConcurrency: 1 },
      {
        prepare: async () => true,
        execute: async (task) => {
          log.push(`start ${task.key}`);
          await tick(3);
          log.push(`end ${task.key}`);
          return 'done';
        },
      },
    );
    await s.run(makeVideos(1, 1, 4));
    const firstEnd = log.findIndex((l) => l.startsWith('end'));
    assert.equal(log.slice(0, firstEnd).filter((l) => l.startsWith('start')).length, 1, log.join('\n'));
  });

  it('moves the work of a server that goes down to the others, and none is lost or doubled', async () => {
    const done = new Map<string, number>();
    const up = [true, true];
    let count = 0;
    const sched: Scheduler<V> = new Scheduler<V>(
      {
        servers: [
          { endpoint: 's0', capacity: 2 },
          { endpoint: 's1', capacity: 2 },
        ],
        prefetch: 3,
        prepConcurrency: 2,
      },
      {
        prepare: async () => true,
        execute: async (task, _v, server) => {
          if (++count === 10) {
            up[0] = false;
            sched.setServerUp(0, false);
            setTimeout(() => {
              up[0] = true;
              sched.setServerUp(0, true);
            }, 40);
          }
          await tick(3);
          if (!up[server.index]) return 'requeue';
          done.set(task.key, (done.get(task.key) ?? 0) + 1);
          return 'done';
        },
      },
    );
    await sched.run(makeVideos(12, 2, 3));
    assert.equal(done.size, 12 * 2 * 3);
    assert.ok([...done.values()].every((n) => n === 1));
  });

  it('a server marked down before run() (down at hand-over) takes no work, and the others do it all', async () => {
    const by: number[] = [];
    const s = new Scheduler<V>(
      { servers: [0, 1].map((i) => ({ endpoint: `s${i}`, capacity: 2 })), prefetch: 2, prepConcurrency: 1 },
      {
        prepare: async () => true,
        execute: async (_task, _video, server) => {
          by.push(server.index);
          return 'done';
        },
      },
    );
    s.setServerUp(0, false);
    await s.run(makeVideos(2, 1, 2));
    assert.deepEqual(by, [1, 1, 1, 1]);
  });

  it('drain stops new work and waits for in-flight requests', async () => {
    let started = 0;
    let finished = 0;
    const s = new Scheduler<V>(
      { servers: [{ endpoint: 's0', capacity: 2 }], prefetch: 2, prepConcurrency: 1 },
      {
        prepare: async () => true,
        execute: async () => {
          started++;
          await tick(5);
          finished++;
          return 'done';
        },
      },
    );
    const p = s.run(makeVideos(10, 2, 2));
    await tick(12);
    s.drain();
    await p;
    assert.equal(started, finished);
    assert.ok(started < 40, `drained early (${started} started)`);
  });

  it('a video whose preparation fails is finished without requests', async () => {
    let executed = 0;
    const finished: string[] = [];
    const s = new Scheduler<V>(
      { servers: [{ endpoint: 's0', capacity: 2 }], prefetch: 2, prepConcurrency: 1 },
      {
        prepare: async (v) => v.n !== 1,
        execute: async () => {
          executed++;
          return 'done';
        },
        videoFinished: (v) => finished.push(v.key),
      },
    );
    await s.run(makeVideos(3, 1, 2));
    assert.equal(executed, 4);
    assert.deepEqual(finished.sort(), ['v0', 'v1', 'v2']);
  });

  it("keeps slots for groups' first requests: followers never fill a server", async () => {
    let followers = 0;
    let maxFollowers = 0;
    const leaders = new Set<string>();
    const s = new Scheduler<V>(
      { servers: [{ endpoint: 's0', capacity: 8 }], prefetch: 4, prepConcurrency: 2 },
      {
        prepare: async () => true,
        execute: async (task) => {
          const isFollower = leaders.has(task.group);
          leaders.add(task.group);
          if (isFollower) maxFollowers = Math.max(maxFollowers, ++followers);
          await tick(isFollower ? 6 : 2);
          if (isFollower) followers--;
          return 'done';
        },
      },
    );
    await s.run(makeVideos(6, 3, 6));
    assert.ok(maxFollowers <= 6, `followers in flight ${maxFollowers} > capacity − 2`);
    assert.ok(maxFollowers >= 4, `followers still run side by side (${maxFollowers})`);
  });

  it("keeps 4 groups' first requests in flight ahead of waiting followers", async () => {
    // A first request's prefill ends well before the request does; with only 2 in flight the GPU ran
    // dry between prefills (vLLM's admission-order prefill), so 4 go ahead of followers.
    let leadersStarted = 0;
    let lateLeadersNow = 0;
    let maxLateLeaders = 0;
    const seen = new Set<string>();
    const s = new Scheduler<V>(
      { servers: [{ endpoint: 's0', capacity: 6 }], prefetch: 2, prepConcurrency: 1 },
      {
        prepare: async () => true,
        execute: async (task) => {
          const isLeader = !seen.has(task.group);
          seen.add(task.group);
          // the first 6 first requests fill the empty server; the later ones compete with followers
          const late = isLeader && ++leadersStarted > 6;
          if (late) maxLateLeaders = Math.max(maxLateLeaders, ++lateLeadersNow);
          await tick(30);
          if (late) lateLeadersNow--;
          return 'done';
        },
      },
    );
    await s.run(makeVideos(1, 10, 10));
    assert.ok(maxLateLeaders >= 4, `first requests in flight beside followers: at most ${maxLateLeaders}`);
  });

  it('in the tail, a server holds first requests back so an idle server takes them', async () => {
    const where = new Map<string, number>();
    const s = new Scheduler<V>(
      { servers: [0, 1].map((i) => ({ endpoint: `s${i}`, capacity: 8 })), prefetch: 2, prepConcurrency: 1 },
      {
        prepare: async () => true,
        execute: async (task, _v, server) => {
          where.set(task.group, server.index);
          await tick(20);
          return 'done';
        },
      },
    );
    // One video of eight one-request groups: the whole run is its tail.
    await s.run(makeVideos(1, 8, 1));
    const perServer = [0, 1].map((i) => [...where.values()].filter((x) => x === i).length);
    assert.ok(
      perServer.every((n) => n >= 3),
      `groups per server ${perServer}`,
    );
  });
});
