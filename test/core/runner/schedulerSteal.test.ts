// Tail stealing with the typed `parent` link, step by step (every request answered by the test, in an
// order it chooses): a stolen group runs on the idle server, and the video is reported finished once,
// only after its stolen part and its own have all ended. And the bench's round-robin baseline (moved
// out of the scheduler) sends each request to the next server in turn.
import { strict as assert } from 'node:assert';
import { Scheduler, type SchedTask, type SchedJob, type TaskOutcome } from '../../../src/core/runner/scheduler';
import { RoundRobinDispatcher } from '../../../bench/roundRobin';

interface Pending {
  task: SchedTask;
  server: number;
  answer(o: TaskOutcome): void;
}

function video(key: string, groups: number, perGroup = 1): SchedJob {
  const tasks: SchedTask[] = [];
  for (let g = 0; g < groups; g++) for (let i = 0; i < perGroup; i++) tasks.push({ key: `${key}/${g}/${i}`, group: `${key}/${g}`, cost: 100 - g });
  return { key, tasks };
}

/** Lets the scheduler's promise callbacks run (each answer settles through a few microtask hops). */
const settle = () => new Promise<void>((r) => setImmediate(r));

describe('runner: scheduler tail stealing (typed parent)', () => {
  it('a stolen group runs on the idle server; the video finishes once, after every part', async () => {
    const pending: Pending[] = [];
    const finished: string[] = [];
    const s = new Scheduler<SchedJob>(
      {
        servers: [
          { endpoint: 'a', capacity: 1 },
          { endpoint: 'b', capacity: 1 },
        ],
        prefetch: 2,
        prepConcurrency: 1,
      },
      {
        prepare: async () => true,
        execute: (task, _v, server) => new Promise<TaskOutcome>((answer) => pending.push({ task, server: server.index, answer })),
        videoFinished: (v) => finished.push(v.key),
      },
    );
    const done = s.run([video('v', 3)]);
    await settle();
    assert.deepEqual(
      pending.map((p) => [p.task.group, p.server]),
      [
        ['v/0', 0],
        ['v/1', 1],
      ],
      'server 1 took a group from server 0',
    );
    pending.splice(1, 1)[0].answer('done'); // the stolen part ends first
    await settle();
    assert.deepEqual(finished, []);
    while (pending.length) {
      pending.shift()!.answer('done');
      await settle();
      if (pending.length) assert.deepEqual(finished, []);
    }
    await done;
    assert.deepEqual(finished, ['v']);
  });

  it('round-robin baseline: each request to the next server with a free slot; a requeued one is sent again', async () => {
    const sent: [string, number][] = [];
    let first = true;
    const rr = new RoundRobinDispatcher<SchedJob>(
      {
        servers: [
          { endpoint: 'a', capacity: 1 },
          { endpoint: 'b', capacity: 1 },
        ],
        prefetch: 2,
        prepConcurrency: 1,
      },
      {
        prepare: async () => true,
        execute: async (task, _v, server) => {
          sent.push([task.key, server.index]);
          if (first) {
            first = false;
            return 'requeue';
          }
          return 'done';
        },
      },
    );
    await rr.run([video('v', 2, 2)]);
    assert.equal(sent.length, 5);
    assert.deepEqual(new Set(sent.map(([k]) => k)), new Set(['v/0/0', 'v/0/1', 'v/1/0', 'v/1/1']));
    assert.deepEqual(
      sent.slice(0, 2).map(([, s]) => s),
      [0, 1],
    );
    assert.equal(rr.stats().inFlight, 0);
  });
});
