// The host CPU sampler and its record (runner/hostCpuSampler.ts, hostCpuRecord.ts) with an injected reader: a
// window a reading, each one line in the run root's record, the status's sums and the 90 % rule, a reading only
// once the window has run its length, windows doubling as the lines grow, a large record set aside, and the last
// pilot's measurement found among other runs' lines.
import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CpuReading } from '../../../src/core/runner/hostCpuProc';
import { HostCpuSampler } from '../../../src/core/runner/hostCpuSampler';
import { lastRunHostCpu, MAX_RECORD_BYTES, readHostCpuLines } from '../../../src/core/runner/hostCpuRecord';
import { hostCpuBottleneckLine, hostCpuText } from '../../../src/core/runner/hostCpuStatus';
import { waitFor } from '../../helpers/waitFor';

/** Readings on a 4-core host: each step `wallS` later, `busy` core-seconds more, of which ours and vLLM's. */
function fakeReader(steps: { wallS: number; busy: number; ours: number; vllm: number }[]) {
  let i = 0;
  let at = 0;
  let busy = 100;
  let ours = 10;
  let vllm = 20;
  const reads: CpuReading[] = [];
  return {
    reads,
    read: async (): Promise<CpuReading> => {
      if (i > 0) {
        const s = steps[Math.min(i - 1, steps.length - 1)];
        at += s.wallS * 1000;
        busy += s.busy;
        ours += s.ours;
        vllm += s.vllm;
      }
      i++;
      const r = { atMs: at, cores: 4, hostBusyS: busy, hostTotalS: 10_000 + at / 250, oursS: ours, vllmS: vllm };
      reads.push(r);
      return r;
    },
  };
}

describe('runner/hostCpuSampler: windows recorded, summed and judged', () => {
  let root: string;
  let file: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'fpsweep-hostcpu-'));
    file = path.join(root, '.fpsweep', 'host_cpu.jsonl');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const lines = () => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : []);

  it('writes a line a window under the root; the status sums them and says the cores bind at ≥ 90 %', async () => {
    const reader = fakeReader([
      { wallS: 10, busy: 38, ours: 20, vllm: 15 },
      { wallS: 10, busy: 36, ours: 18, vllm: 15 },
    ]);
    const s = new HostCpuSampler({ reader, root, file, runId: 'r1', mode: 'pilot' });
    await s.start();
    assert.equal(s.status(), null, 'no window before the second reading');
    const first = await s.sample();
    assert.deepEqual(first, { ...first!, runId: 'r1', mode: 'pilot', wallS: 10, cores: 4, busyCoreS: 38, oursCoreS: 20, vllmCoreS: 15 });
    await s.stop();
    assert.equal(lines().length, 2);
    const st = s.status()!;
    assert.equal(st.busyCoreS, 74);
    assert.equal(st.wallS, 20);
    assert.equal(st.busyShare, 74 / 80);
    assert.equal(st.bound, true);
    assert.deepEqual(st.last, { wallS: 10, busyShare: 0.9 });
    const text = 'host CPU: 93% of 4 cores busy over 20 s (ours 51%, vLLM 41%, others 8% of the busy CPU; last 10 s 90%)';
    assert.equal(hostCpuText(st), `${text} — the cores bind (≥ 90%)`);
    assert.match(
      hostCpuBottleneckLine(st, 'KNOB', 'bottleneck: bound by our frames on 1 of 1 server(s); turn: X'),
      /^bottleneck: host CPU-bound \(93% of 4 cores busy over 20 s, ours 51% of it\); turn: KNOB; servers: bound by our frames on 1 of 1/,
    );
    assert.equal(await s.sample(), null, 'no window after stop');
  });

  it('a host at 89 % is not bound', async () => {
    const s = new HostCpuSampler({ reader: fakeReader([{ wallS: 10, busy: 35.6, ours: 1, vllm: 1 }]), root, file, runId: 'r1', mode: 'full' });
    await s.start();
    await s.sample();
    await s.stop();
    assert.equal(s.status()!.bound, false);
    assert.doesNotMatch(hostCpuText(s.status()!), /bind/);
  });

  it("the run's tick reads only once the window has run its length; the window doubles every linesPerDoubling lines", async () => {
    const reader = fakeReader([{ wallS: 10, busy: 1, ours: 0, vllm: 0 }]);
    const s = new HostCpuSampler({ reader, root, file, runId: 'r1', mode: 'pilot', periodS: 10, linesPerDoubling: 2 });
    await s.start();
    s.tick(9_999);
    assert.equal(reader.reads.length, 1, 'no reading before 10 s');
    s.tick(10_000);
    await waitFor(() => lines().length === 1, 5000, 'the first window written');
    assert.equal(s.periodS, 10);
    s.tick(20_000);
    await waitFor(() => lines().length === 2, 5000, 'the second window written');
    assert.equal(s.periodS, 20, 'two lines: the window doubles');
    s.tick(30_000 + 19_999);
    assert.equal(reader.reads.length, 3, 'no reading before 20 s');
    await s.stop();
  });

  it('a record past its bound is set aside when a run starts (one generation kept), and still read', async () => {
    const old = JSON.stringify({ v: 1, runId: 'r0', mode: 'pilot', endedAt: 'x', wallS: 10, cores: 4, busyCoreS: 39, oursCoreS: 30, vllmCoreS: 5 });
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${old}\n`.repeat(Math.ceil((MAX_RECORD_BYTES + 1) / (old.length + 1))));
    const s = new HostCpuSampler({ reader: fakeReader([{ wallS: 10, busy: 1, ours: 0, vllm: 0 }]), root, file, runId: 'r1', mode: 'full' });
    await s.start();
    await s.stop();
    assert.ok(existsSync(file.replace(/\.jsonl$/, '.1.jsonl')));
    assert.equal(lines().length, 1);
    const all = await readHostCpuLines(file);
    assert.equal(all[all.length - 1].runId, 'r1');
    assert.equal((await lastRunHostCpu(file, 'pilot'))?.runId, 'r0');
  });

  it("the last pilot's windows summed, other runs' and torn lines passed over", async () => {
    const l = (runId: string, mode: string, busy: number) =>
      JSON.stringify({ v: 1, runId, mode, endedAt: 't', wallS: 10, cores: 4, busyCoreS: busy, oursCoreS: busy / 2, vllmCoreS: null });
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, [l('p1', 'pilot', 10), l('p2', 'pilot', 39), 'not json', l('p2', 'pilot', 37), l('f1', 'full', 5), '{"v":1,"runId":"t'].join('\n'));
    const run = await lastRunHostCpu(file, 'pilot');
    assert.equal(run?.runId, 'p2');
    assert.deepEqual(run?.measure, { busyCoreS: 76, cores: 4, wallS: 20, oursCoreS: 38, vllmCoreS: null });
    assert.equal(await lastRunHostCpu(file, 'custom'), null);
    assert.equal(await lastRunHostCpu(path.join(root, 'none.jsonl'), 'pilot'), null);
  });
});
