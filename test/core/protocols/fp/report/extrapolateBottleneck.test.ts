// The full-run estimate scales the bottleneck's busy time, in its unit of work (prompt tokens for the GPU and the
// front end, our decode seconds for frames, request-seconds for the client); without a verdict it is the
// request-seconds method over the pilot's concurrency. And the report carries the last run's verdicts.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { classifyBottleneck, type Bottleneck, type BottleneckKind } from '../../../../../src/core/runner/bottleneck';
import { extrapolate, type PilotBottleneck } from '../../../../../src/core/protocols/fp/report/extrapolate';
import type { TimingRow } from '../../../../../src/core/protocols/fp/report/schema';
import { buildReport } from '../../../../../src/core/protocols/fp/report/buildReport';
import { reportMarkdown } from '../../../../../src/core/protocols/fp/report/markdown';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import { writeStatusAtomic } from '../../../../../src/core/protocols/fp/status/status';
import type { WorkerStatus } from '../../../../../src/core/protocols/fp/status/statusSchema';
import { makeReportPackage } from './fixture';
import { recordFramesPaths } from '../../../../../src/core/protocols/fp/sweep/fpHostCpu';

function row(condition: string, infer: number, infer_s: number, decode_s: number, prompt_tokens: number): TimingRow {
  return {
    condition,
    infer,
    infer_s,
    decode_s,
    prompt_tokens,
    infer_s_per_item: infer_s / infer,
    decode_s_per_item: decode_s / infer,
    prompt_tok_per_item: prompt_tokens / infer,
    text: '',
  };
}

const TIMING = [row('v_8_s224', 10, 20, 2, 5_000), row('v_32_s224', 10, 60, 8, 20_000)];
const TODO = [
  { benchmark: 'A', condition: 'v_8_s224', todo: 1000 },
  { benchmark: 'B', condition: 'v_32_s224', todo: 500 },
];

function verdict(kind: BottleneckKind, over: Partial<Bottleneck> = {}): Bottleneck {
  return {
    kind,
    reason: kind,
    knob: 'k',
    gpuBusy: 0.8,
    engineQueue: 1,
    frontEndShare: 0.1,
    framesWaitShare: 0,
    slotWaitShare: 0,
    meanInFlight: 4,
    wallS: 100,
    requests: 20,
    latencyS: 80,
    promptTokens: 40_000,
    ...over,
  };
}
const pilot = (kind: BottleneckKind, over: Partial<Bottleneck> = {}): PilotBottleneck => ({ kind, servers: [verdict(kind, over), verdict(kind, over)] });
const run = (b: PilotBottleneck | null, servers = 2, todo = TODO) => extrapolate(TIMING, todo, null, servers, 'test', 80, 100, b);
const close = (a: number | null, b: number) => assert.ok(a !== null && Math.abs(a - b) < 1e-6 * Math.max(1, b), `${a} ≠ ${b}`);

describe('report: extrapolation on the bottleneck', () => {
  it('GPU-bound: todo prompt tokens × engine-busy seconds per prefilled token, over the servers', () => {
    const x = run(pilot('gpu'));
    const tokens = 1000 * 500 + 500 * 2000; // todo × prompt tokens per item
    const secondsPerToken = (2 * 100 * 0.8) / (2 * 40_000);
    assert.equal(x.bottleneck, 'gpu');
    close(x.workTotal, tokens);
    close(x.secondsPerUnit, secondsPerToken);
    close(x.estimatedSeconds, (tokens * secondsPerToken) / 2);
  });

  it('front-end-bound: the same tokens over the wall time of the window (no busy time exported)', () => {
    const x = run(pilot('front-end'));
    close(x.estimatedSeconds, ((1000 * 500 + 500 * 2000) * (200 / 80_000)) / 2);
  });

  it('bound by our frames: the pilot wall time scaled by the decode seconds to do', () => {
    const x = run(pilot('frames'));
    close(x.estimatedSeconds, 100 * ((1000 * 0.2 + 500 * 0.8) / 10));
  });

  it('bound by the client, or no verdict: request-seconds over the servers and the pilot concurrency, as before', () => {
    const serial = (1000 * 2 + 500 * 6) / 2;
    const concurrency = 80 / (100 * 2);
    for (const b of [pilot('client'), null]) {
      const x = run(b);
      close(x.serialSeconds, serial);
      close(x.estimatedSeconds, serial / concurrency);
    }
  });

  it('a GPU verdict without vLLM token counts falls back to request-seconds and says so', () => {
    const x = run(pilot('gpu', { promptTokens: null }));
    assert.equal(x.bottleneck, 'unknown');
    assert.match(x.method, /was not measured/);
    close(x.estimatedSeconds, (1000 * 2 + 500 * 6) / 2 / (80 / 200));
  });

  it('scales linearly with the work to do and inversely with the servers, for every verdict', () => {
    fc.assert(
      fc.property(fc.constantFrom<BottleneckKind>('gpu', 'front-end', 'client', 'unknown'), fc.integer({ min: 1, max: 50 }), (kind, k) => {
        const b = kind === 'unknown' ? null : pilot(kind);
        const base = run(b, 2).estimatedSeconds!;
        close(
          run(
            b,
            2,
            TODO.map((t) => ({ ...t, todo: t.todo * k })),
          ).estimatedSeconds,
          base * k,
        );
        if (kind === 'gpu' || kind === 'front-end') close(run(b, 2 * k).estimatedSeconds, base / k);
      }),
      { numRuns: 100 },
    );
  });
});

describe('report: the last run’s bottleneck', () => {
  it("carries the status file's verdicts, names the bottleneck in report.md and extrapolates on it", async () => {
    const dir = await makeReportPackage();
    const layout = new PackageLayout(dir);
    const client = { requests: 50, latencyS: 100, slotWaitS: 0, framesWaitS: 0, inFlightS: 100, capacity: 6 };
    const gpu = classifyBottleneck({ wallS: 100, engine: null, samples: { total: 10, busy: 10, runningSum: 30, waitingSum: 20 }, maxNumSeqs: 32, client });
    const status: WorkerStatus = {
      version: 1,
      pid: 1,
      runId: 'pilot-1',
      startedAt: new Date(0).toISOString(),
      updatedAt: new Date(0).toISOString(),
      state: 'done',
      mode: 'pilot',
      benchmarks: [],
      conditions: [],
      message: null,
      totals: { total: 0, done: 0, todo: 0, inFlight: 0, failed: 0, failedBefore: 0, addedThisRun: 0 },
      cells: [],
      throughput: { requestsPerMin: 0, framesPerSec: 0 },
      etaSeconds: null,
      servers: [{ index: 0, endpoint: 'http://127.0.0.1:8011', state: 'up', running: 0, waiting: 0, restarts: 0, message: null, bottleneck: gpu }],
      summary: 'done',
      bottleneck: { kind: 'gpu', line: 'bottleneck: GPU-bound on 1 of 1 server(s); turn: none on our side' },
      hostCpu: { cores: 16, wallS: 100, busyCoreS: 1200, oursCoreS: 600, vllmCoreS: 500, busyShare: 0.75, bound: false, last: null },
    };
    await writeStatusAtomic(layout, status);
    // Issue 45: what --frames-on chose for this run and why, from its frames_paths line (another run's is not read).
    const reason = "frames on the GPU: --frames-on auto, and the pilot found the host's CPU the bound (pilot p0: host CPU: 95% of 16 cores busy)";
    await recordFramesPaths(layout, {
      v: 1,
      runId: 'p0',
      mode: 'pilot',
      endedAt: 't',
      use: 'cpu',
      reason: 'frames on the CPU: earlier',
      cpu: { videos: 4, seconds: 8 },
      gpu: { videos: 0, seconds: 0 },
    });
    await recordFramesPaths(layout, {
      v: 1,
      runId: 'pilot-1',
      mode: 'pilot',
      endedAt: 't',
      use: 'gpu',
      reason,
      cpu: { videos: 3, seconds: 7.2 },
      gpu: { videos: 12, seconds: 13.2 },
    });
    const r = await buildReport(dir, { todo: async () => TODO });
    assert.equal(r.bottleneck?.kind, 'gpu');
    assert.equal(r.bottleneck?.servers[0].endpoint, 'http://127.0.0.1:8011');
    // The window had no /metrics token counts: the estimate falls back and says why.
    assert.equal(r.extrapolation.bottleneck, 'unknown');
    const md = reportMarkdown(r);
    assert.match(md, /## Where the time went\n\nRun pilot-1: \*\*bottleneck: GPU-bound on 1 of 1 server\(s\)/);
    // The host's CPU over that run's requests (issue 34), in the JSON and under the run's line.
    assert.equal(r.bottleneck?.hostCpu?.busyShare, 0.75);
    assert.equal(r.bottleneck?.hostCpuLine, 'host CPU: 75% of 16 cores busy over 100 s (ours 50%, vLLM 42%, others 8% of the busy CPU)');
    assert.match(md, /\*\*\n\nhost CPU: 75% of 16 cores busy over 100 s \(ours 50%/);
    assert.equal(r.bottleneck?.framesLine, `${reason}; frames: 12 videos on the GPU (1.10 s each), 3 on the CPU (2.40 s each)`);
    assert.ok(md.includes(`\n\nframes on the GPU: --frames-on auto, and the pilot found the host's CPU the bound (pilot p0`), md);
    assert.ok(md.includes('frames: 12 videos on the GPU (1.10 s each), 3 on the CPU (2.40 s each)'));
  });
});
