// The scheduler's time accounts (what the bottleneck verdict reads of our side), on a fake clock with explicit
// gates: a free slot while frames are prepared, a full slot while work waits, and requests in flight over time.
import { strict as assert } from 'node:assert';
import { Scheduler, type SchedJob } from '../../../src/core/runner/scheduler';

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}
const settle = () => new Promise((r) => setImmediate(r));

describe('runner scheduler: time accounts', () => {
  it('counts waiting on frames, waiting for a slot and requests in flight, each in the state it held', async () => {
    let now = 0;
    const prep = new Map<string, ReturnType<typeof gate>>();
    const exec = new Map<string, ReturnType<typeof gate>>();
    const videos: SchedJob[] = ['v0', 'v1'].map((k) => ({ key: k, tasks: [{ key: `${k}/t`, group: `${k}/g`, cost: 1 }] }));
    for (const v of videos) [prep, exec].forEach((m) => m.set(v.key, gate()));
    const s = new Scheduler<SchedJob>(
      { servers: [{ endpoint: 's0', capacity: 1 }], prefetch: 2, prepConcurrency: 1, clock: () => now },
      {
        prepare: async (v) => (await prep.get(v.key)!.promise, true),
        execute: async (_t, v) => (await exec.get(v.key)!.promise, 'done'),
      },
    );
    const done = s.run(videos);
    await settle();
    now = 1000; // 1 s with a free slot and v0's frames being prepared
    prep.get('v0')!.open();
    await settle();
    now = 3000; // 2 s with v0's request in flight, nothing else ready
    prep.get('v1')!.open();
    await settle();
    now = 6000; // 3 s with the slot full and v1 ready
    exec.get('v0')!.open();
    await settle();
    now = 7000; // 1 s with v1's request in flight
    exec.get('v1')!.open();
    await done;
    assert.deepEqual(s.timeAccounts(), [{ framesWaitS: 1, slotWaitS: 3, inFlightS: 6 }]);
  });
});
