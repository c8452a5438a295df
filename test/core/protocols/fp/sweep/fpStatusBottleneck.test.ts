// The bottleneck in the status file and in `status`'s text: each server's verdict under its line, and the run's
// line (the kind most servers have, with its knob).
import { strict as assert } from 'node:assert';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import { classifyBottleneck, type Bottleneck } from '../../../../../src/core/runner/bottleneck';
import { FP_BOTTLENECK_WORDS } from '../../../../../src/core/protocols/fp/sweep/fpBottleneckWords';
import { formatStatus } from '../../../../../src/core/protocols/fp/status/formatStatus';
import { FpStatusReporter as StatusReporter } from '../../../../../src/core/protocols/fp/sweep/fpStatus';
import type { ServerStatus } from '../../../../../src/core/runner/serverStatus';
import { workerStatusSchema } from '../../../../../src/core/protocols/fp/status/statusSchema';

const client = { requests: 50, latencyS: 100, slotWaitS: 0, framesWaitS: 0, inFlightS: 100, capacity: 6 };
const gpu = classifyBottleneck({ wallS: 100, engine: null, samples: { total: 10, busy: 10, runningSum: 30, waitingSum: 20 }, maxNumSeqs: 32, client });
const frames = classifyBottleneck(
  {
    wallS: 100,
    engine: null,
    samples: { total: 10, busy: 5, runningSum: 5, waitingSum: 0 },
    maxNumSeqs: 32,
    client: { ...client, inFlightS: 60, framesWaitS: 50 },
  },
  FP_BOTTLENECK_WORDS,
);

function server(index: number, b: Bottleneck | null): ServerStatus {
  return { index, endpoint: `http://127.0.0.1:${8011 + index}`, state: 'up', running: 1, waiting: 0, restarts: 0, message: null, bottleneck: b };
}

describe('runner unit: the bottleneck in the status', () => {
  it('carries each server verdict and the run line, and prints both', () => {
    assert.deepEqual([gpu.kind, frames.kind], ['gpu', 'frames']);
    const r = new StatusReporter(
      new PackageLayout('/nonexistent'),
      { runId: 'r1', pid: 1, startedAt: 0, mode: 'pilot', shard: null, benchmarks: ['b'], conditions: ['v_32'] },
      { cells: () => [], inFlight: () => 0, addedThisRun: () => 0, servers: () => [server(0, gpu), server(1, frames), server(2, gpu)], stopReason: () => null },
    );
    const st = workerStatusSchema.parse(r.make(null, 1000));
    assert.equal(st.bottleneck?.kind, 'gpu');
    assert.match(st.bottleneck!.line, /^bottleneck: GPU-bound on 2 of 3 server\(s\); turn: /);
    const text = formatStatus(st, true);
    assert.match(text, /server 1 http:\/\/127\.0\.0\.1:8012: up.*\n {4}bound by our frames: .*; turn: more decode workers/);
    assert.match(text, /\nbottleneck: GPU-bound on 2 of 3/);
  });

  it('has no run line before any verdict (older status files read as before)', () => {
    const r = new StatusReporter(
      new PackageLayout('/nonexistent'),
      { runId: 'r1', pid: 1, startedAt: 0, mode: 'pilot', shard: null, benchmarks: [], conditions: [] },
      { cells: () => [], inFlight: () => 0, addedThisRun: () => 0, servers: () => [server(0, null)], stopReason: () => null },
    );
    const st = r.make(null, 1000);
    assert.equal(st.bottleneck, null);
    assert.doesNotMatch(formatStatus(st, true), /bottleneck/);
  });
});

describe('runner unit: the host CPU in the status (issue 34)', () => {
  const hostCpu = (busyShare: number) => ({
    cores: 16,
    wallS: 300,
    busyCoreS: busyShare * 16 * 300,
    oursCoreS: 0.5 * busyShare * 16 * 300,
    vllmCoreS: 0.4 * busyShare * 16 * 300,
    busyShare,
    bound: busyShare >= 0.9,
    last: { wallS: 10, busyShare },
  });
  const reporter = (h: ReturnType<typeof hostCpu> | null) =>
    new StatusReporter(
      new PackageLayout('/nonexistent'),
      { runId: 'r1', pid: 1, startedAt: 0, mode: 'pilot', shard: null, benchmarks: ['b'], conditions: ['v_32'] },
      {
        cells: () => [],
        inFlight: () => 0,
        addedThisRun: () => 0,
        servers: () => [server(0, frames)],
        stopReason: () => null,
        hostCpu: () => h,
        hostCpuKnob: () => 'frames on the GPU: --frames-on gpu',
      },
    );

  it('cores busy ≥ 90 %: the run line says the host CPU binds, with the share, its knob, then the servers', () => {
    const st = workerStatusSchema.parse(reporter(hostCpu(0.96)).make(null, 1000));
    assert.equal(st.bottleneck?.hostCpuBound, true);
    assert.equal(st.bottleneck?.kind, 'frames');
    assert.match(st.bottleneck!.line, /^bottleneck: host CPU-bound \(96% of 16 cores busy over 300 s, ours 50% of it\); /);
    assert.match(st.bottleneck!.line, /; turn: frames on the GPU: --frames-on gpu; servers: bound by our frames on 1 of 1/);
    assert.equal(st.hostCpu?.busyShare, 0.96);
    const text = formatStatus(st, false);
    assert.match(text, /\nhost CPU: 96% of 16 cores busy over 300 s \(ours 50%, vLLM 40%, others 10% of the busy CPU; last 10 s 96%\) — the cores bind/);
  });

  it("below 90 %: the servers' line as before, the host CPU shown beside it", () => {
    const st = workerStatusSchema.parse(reporter(hostCpu(0.7)).make(null, 1000));
    assert.equal(st.bottleneck?.hostCpuBound, undefined);
    assert.match(st.bottleneck!.line, /^bottleneck: bound by our frames on 1 of 1/);
    assert.match(formatStatus(st, false), /\nhost CPU: 70% of 16 cores busy over 300 s .*\)\n/);
    assert.doesNotMatch(formatStatus(st, false), /cores bind/);
  });

  it('no measurement: no host CPU field, no line', () => {
    const st = workerStatusSchema.parse(reporter(null).make(null, 1000));
    assert.equal(st.hostCpu, null);
    assert.doesNotMatch(formatStatus(st, false), /host CPU/);
  });
});
