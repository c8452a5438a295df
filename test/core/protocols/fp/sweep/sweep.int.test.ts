// The sweep end to end on the sample package with stand-in vLLM servers (launched by the launcher
// through VLLM_BIN=bin/fake-vllm, on free ports). Each test works on its own copy of the package.
import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import sharp from 'sharp';
import { copySamplePackage, getSamplePackage, SAMPLE_TIMEOUT_MS, type SampleFixture } from '../sample/fixture';
import { decodeFrameCode } from '../../../../../src/core/protocols/fp/sample';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import { videoMetaSchema } from '../../../../../src/core/protocols/fp/package/schemas';
import { parseCondition } from '../../../../../src/core/protocols/fp/rules/conditions';
import { planFrames } from '../../../../../src/core/protocols/fp/rules/plan';
import { buildPromptText } from '../../../../../src/core/protocols/fp/rules/prompt';
import { runSweep, type SweepResult } from '../../../../../src/core/protocols/fp/sweep/sweep';
import type { FrameSource } from '../../../../../src/core/protocols/fp/sweep/frameSource';
import { dryRun } from '../../../../../src/core/protocols/fp/dryrun/dryRun';
import { defaultSweepDeps } from '../../../../../src/core/protocols/fp/sweep/adapters';
import { runOptionsSchema, type RunOptionsInput } from '../../../../../src/core/protocols/fp/sweep/runOptions';
import { acquireLock } from '../../../../../src/core/runner/lock';
import { readStatus } from '../../../../../src/core/protocols/fp/status/status';
import type { WorkerStatus } from '../../../../../src/core/protocols/fp/status/statusSchema';
import { readHostCpuLines } from '../../../../../src/core/runner/hostCpuRecord';
import { main as cliMain } from '../../../../../src/cli/main';
import { FAKE_VLLM, assertConsistent, freePortRange, readArtifacts, rowKeySet, startStandin, withEnv, artifactKey } from './helpers';

const PILOT = ['MVBench', 'LVBench', 'TimeScope'];
/** Storage size, three resizes, the fps ladder's first steps, text only, and the stored-480 reuse rule. */
const CONDS = ['v_blind', 'v_1', 'v_8_s224', 'v_32_s168', 'v_32_s448', 'v_fps0.5_s224'];

async function sweep(pkg: string, opts: Partial<RunOptionsInput>, env: Record<string, string | undefined> = {}): Promise<SweepResult> {
  const base = await freePortRange(2);
  return withEnv({ VLLM_BIN: FAKE_VLLM, ...env }, () =>
    runSweep(runOptionsSchema.parse({ package: pkg, ngpu: 2, basePort: base, vllmBin: FAKE_VLLM, decodeWorkers: 2, ...opts }), defaultSweepDeps),
  );
}

function itemsOf(sample: SampleFixture, benches: string[]) {
  return sample.plan.items.filter((i) => benches.includes(i.benchmark));
}

describe('runner: the sweep on the sample package', function () {
  this.timeout(120_000);
  let shared: SampleFixture;
  before(async function () {
    this.timeout(SAMPLE_TIMEOUT_MS);
    shared = await getSamplePackage();
  });

  describe('a pilot with malformed inputs', () => {
    let sample: SampleFixture;
    let layout: PackageLayout;
    let result: SweepResult;
    let inspect: string;
    let badItemLine: number;
    before(async () => {
      sample = await copySamplePackage();
      layout = new PackageLayout(sample.root);
      // A malformed item line and a malformed manifest line: reported with file:line, the rest runs.
      const items = layout.samplesFile('MVBench');
      badItemLine = (await fs.readFile(items, 'utf8')).trim().split('\n').length + 1;
      await fs.appendFile(items, '{"item_id": "MVBench_bad", "benchmark": "MVBench", "question": 3}\n');
      await fs.appendFile(layout.manifest, 'not json\n');
      inspect = path.join(sample.root, 'inspect.jsonl');
      result = await sweep(sample.root, { pilot: true, conditions: CONDS }, { FPSWEEP_STANDIN_INSPECT: inspect });
    });

    it('finishes with exit 0 and a last line in numbers', () => {
      assert.equal(result.exitCode, 0, result.summary);
      assert.match(result.summary, /^done: \d+ rows added \(ok \d+, NA \d+, reuse \d+\), \d+ failure\(s\) logged/);
      assert.ok(result.added.ok > 50, result.summary);
      assert.ok(result.added.NA > 0 && result.added.reuse > 0, result.summary);
    });

    it("the final status names each server's bottleneck from its /metrics window and our own timings", async () => {
      const st = (await readStatus(layout))!;
      assert.equal(st.servers.length, 2);
      for (const sv of st.servers) {
        const b = sv.bottleneck!;
        assert.ok(b && b.requests > 0 && b.wallS > 0, JSON.stringify(sv));
        assert.ok(b.gpuBusy !== null && b.promptTokens !== null && b.promptTokens > 0, JSON.stringify(b));
        assert.ok(b.latencyS > 0 && b.meanInFlight > 0, JSON.stringify(b));
      }
      assert.match(st.bottleneck!.line, /^bottleneck: /);
    });

    it("records the host's CPU over the requests (issue 34): a line a window for this run, summed in the status", async () => {
      const st = (await readStatus(layout))!;
      const lines = (await readHostCpuLines(layout.hostCpuRecord)).filter((l) => l.runId === st.runId);
      assert.ok(lines.length >= 1, 'at least the last window');
      assert.ok(lines.every((l) => l.mode === st.mode && l.cores >= 1));
      const h = st.hostCpu!;
      assert.ok(h && h.wallS > 0 && h.busyShare > 0, JSON.stringify(h));
      assert.ok(Math.abs(h.wallS - lines.reduce((x, l) => x + l.wallS, 0)) < 0.01 * lines.length, JSON.stringify({ h, lines }));
      // Our tree (the sweep's process: sharp, ffmpeg) did work; the stand-in servers we launched are vLLM's share.
      assert.ok(h.oursCoreS! > 0 && h.vllmCoreS !== null, JSON.stringify(h));
      assert.equal(h.bound, h.busyShare >= 0.9);
    });

    it('every request carried the planned frames at the planned size, read back from the pixels', async () => {
      const metas = new Map<string, ReturnType<typeof videoMetaSchema.parse>>();
      for (const v of sample.plan.videos) {
        const m = await fs.readFile(layout.metaFile(v.hash), 'utf8').catch(() => null);
        if (m) metas.set(v.hash, videoMetaSchema.parse(JSON.parse(m)));
      }
      // What should have been sent: prompt + frames (video tag, index, dims), for each ok row.
      const a = await readArtifacts(layout);
      const expected = new Map<string, number>();
      const items = new Map(itemsOf(sample, PILOT).map((i) => [`${i.benchmark}/${i.item_id}`, i]));
      let sentRows = 0;
      const origin = new Set(sample.plan.existing.map((e) => artifactKey(e.benchmark, e.item_id, e.condition)));
      for (const r of a.rows.filter((x) => x.status === 'ok' && PILOT.includes(x.benchmark))) {
        if (origin.has(artifactKey(r.benchmark, r.item_id, r.condition))) continue; // rows that were there before the run
        const raw = a.raws.find((x) => x.benchmark === r.benchmark && x.item_id === r.item_id && x.condition === r.condition)!;
        const item = items.get(`${r.benchmark}/${r.item_id}`)!;
        const video = sample.plan.videos.find((v) => v.hash === item.hash)!;
        const cond = parseCondition(r.condition);
        const plan = planFrames(cond, cond.kind === 'blind' ? null : metas.get(item.hash!)!);
        assert.equal(plan.status, 'send');
        if (plan.status !== 'send') continue;
        assert.deepEqual(raw.meta.frame_indices, plan.indices, `${r.item_id} ${r.condition} raw meta`);
        const k = JSON.stringify([buildPromptText(item.question, item.options), plan.indices.map((i) => [video.tag, i, plan.width, plan.height])]);
        expected.set(k, (expected.get(k) ?? 0) + 1);
        sentRows++;
      }
      // The pre-flight sent one unit of the plan to each server, with the frames the sweep sends.
      const pre = JSON.parse(await fs.readFile(path.join(layout.logsDir, 'preflight.json'), 'utf8'));
      assert.equal(pre.ok, true);
      {
        const item = items.get(`${pre.unit.benchmark}/${pre.unit.item_id}`)!;
        const video = sample.plan.videos.find((v) => v.hash === item.hash)!;
        const cond = parseCondition(pre.unit.condition);
        const plan = planFrames(cond, cond.kind === 'blind' ? null : metas.get(item.hash!)!);
        assert.ok(plan.status === 'send' && plan.indices.length > 0 && pre.unit.frames_as === 'file');
        const k = JSON.stringify([buildPromptText(item.question, item.options), plan.indices.map((i) => [video.tag, i, plan.width, plan.height])]);
        expected.set(k, (expected.get(k) ?? 0) + pre.servers.length);
      }
      // What arrived: the stand-in's request log, frames decoded from the JPEG files it was sent.
      const codes = new Map<string, { tag: number; index: number; w: number; h: number }>();
      const seen = new Map<string, number>();
      const lines = (await fs.readFile(inspect, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const ok = lines.filter((l) => l.status === 200);
      // Each distinct JPEG file is read back once (four at a time: sharp works off the main thread).
      const paths = [...new Set(ok.flatMap((rec) => (rec.images as { path: string | null }[]).map((im) => im.path)))];
      assert.ok(
        paths.every((p) => p !== null),
        'launched servers get file:// frames',
      );
      for (let i = 0; i < paths.length; i += 4) {
        await Promise.all(
          paths.slice(i, i + 4).map(async (p) => {
            const buf = await fs.readFile(p!);
            const meta = await sharp(buf).metadata();
            const code = await decodeFrameCode(buf);
            codes.set(p!, { tag: code.videoTag, index: code.frameIndex, w: meta.width!, h: meta.height! });
          }),
        );
      }
      for (const rec of ok) {
        const frames: unknown[] = [];
        for (const im of rec.images as { path: string; width: number; height: number }[]) {
          const c = codes.get(im.path)!;
          assert.equal(c.w, im.width);
          assert.equal(c.h, im.height);
          frames.push([c.tag, c.index, c.w, c.h]);
        }
        const k = JSON.stringify([rec.prompt_text, frames]);
        seen.set(k, (seen.get(k) ?? 0) + 1);
      }
      assert.ok(sentRows > 50);
      assert.deepEqual(new Map([...seen].sort()), new Map([...expected].sort()));
    });

    it('writes NA rows, stored-480 reuse rows from v_32, no_video failures, one row per key, a raw record per row', async () => {
      const a = await readArtifacts(layout);
      assertConsistent(a, new Set(sample.plan.existing.map((e) => artifactKey(e.benchmark, e.item_id, e.condition))));
      const reuse = a.rows.filter((r) => r.status === 'reuse');
      assert.ok(reuse.length > 0);
      for (const r of reuse) {
        assert.equal(r.condition, 'v_32_s448');
        const v32 = a.rows.find((x) => x.benchmark === r.benchmark && x.item_id === r.item_id && x.condition === 'v_32')!;
        assert.ok(v32, 'the v_32 row exists');
        assert.equal(r.pred, v32.pred);
        assert.equal(r.correct, v32.correct);
        assert.equal(r.latency_s, '');
        const raw = a.raws.find((x) => x.benchmark === r.benchmark && x.item_id === r.item_id && x.condition === r.condition)!;
        assert.equal(raw.meta.reused_from, 'v_32');
      }
      for (const r of a.rows.filter((x) => x.status === 'NA')) {
        assert.deepEqual([r.pred, r.correct, r.n_frames, r.prompt_tokens, r.latency_s], ['', '', '', '', '']);
        assert.equal(r.condition, 'v_fps0.5_s224');
      }
      const failures = (await fs.readFile(layout.failuresLog, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const missing = itemsOf(sample, PILOT).filter((i) => i.missing);
      assert.ok(missing.length > 0);
      for (const m of missing)
        assert.ok(
          failures.some((f) => f.item_id === m.item_id && f.kind === 'no_video'),
          m.item_id,
        );
      assert.deepEqual(
        failures.filter((f) => f.kind !== 'no_video').map((f) => `${f.item_id} ${f.condition} ${f.kind} ${f.message.slice(0, 100)}`),
        [],
      );
      // every pilot item × condition is now a row or a failure
      const keys = rowKeySet(a);
      for (const i of itemsOf(sample, PILOT)) {
        for (const c of CONDS) {
          assert.ok(keys.has(artifactKey(i.benchmark, i.item_id, c)) || i.missing, `${i.item_id} ${c}`);
        }
      }
    });

    it('reports the malformed lines with file and line in runner.log, and the timing per benchmark × condition', async () => {
      const log = await fs.readFile(layout.runnerLog, 'utf8');
      assert.ok(log.includes(`${layout.samplesFile('MVBench')}:${badItemLine}:`), 'item line reported');
      assert.match(log, /manifest_subset\.jsonl:\d+: not valid JSON/);
      const timing = (await fs.readFile(layout.timingLog, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const mv = timing.find((t) => t.benchmark === 'MVBench' && t.condition === 'v_8_s224');
      assert.ok(mv && mv.infer > 0 && mv.prompt_tokens > 0 && mv.infer_s > 0 && mv.decode_s >= 0);
      const idLines = (await fs.readFile(path.join(layout.logsDir, 'run_identity.jsonl'), 'utf8')).trim().split('\n');
      assert.equal(idLines.length, 1);
      assert.match(log, new RegExp(JSON.parse(idLines[0]).run_id));
      const s = await readStatus(layout);
      assert.equal(s?.state, 'done');
      assert.equal(s?.totals.todo, 0);
    });
  });

  it('503s are retried and a server that crashes mid-run is restarted; nothing is lost or doubled', async () => {
    const sample = await copySamplePackage();
    const layout = new PackageLayout(sample.root);
    const once = path.join(sample.root, 'crashed-once');
    // One server: the run cannot end before the crashed server is back, so the restart lies inside
    // work the run still has to do (with two, the healthy one could finish everything first).
    const res = await sweep(
      sample.root,
      { ngpu: 1, benchmarks: ['MVBench', 'NExTQA'], conditions: ['v_blind', 'v_8_s224'] },
      {
        FPSWEEP_STANDIN_FAULTS: 'status503Every=7,crashAfter=3',
        FPSWEEP_STANDIN_CRASH_ONCE_FILE: once,
      },
    );
    assert.equal(res.exitCode, 0, res.summary);
    await fs.access(once); // the crash happened
    const a = await readArtifacts(layout);
    assertConsistent(a, new Set(sample.plan.existing.map((e) => artifactKey(e.benchmark, e.item_id, e.condition))));
    const failures = (await fs.readFile(layout.failuresLog, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      failures.filter((f) => f.kind !== 'no_video').map((f) => `${f.item_id} ${f.condition} ${f.kind} ${f.message.slice(0, 100)}`),
      [],
      'no request lost to the faults',
    );
    const keys = rowKeySet(a);
    for (const i of itemsOf(sample, ['MVBench', 'NExTQA']).filter((x) => !x.missing)) {
      for (const c of ['v_blind', 'v_8_s224']) assert.ok(keys.has(artifactKey(i.benchmark, i.item_id, c)), `${i.item_id} ${c}`);
    }
    const log = await fs.readFile(layout.runnerLog, 'utf8');
    assert.match(log, /server gpu0 up → restarting/);
    assert.match(log, /server gpu0 restarting → up/);
  });

  it('a server that cannot hold the 65,536-token context stops the run with a report (never lowered)', async () => {
    const sample = await copySamplePackage();
    const layout = new PackageLayout(sample.root);
    const res = await sweep(sample.root, { benchmarks: ['MVBench'], conditions: ['v_8_s224'] }, { FPSWEEP_STANDIN_FAULTS: 'refuseContext=1' });
    assert.equal(res.exitCode, 1);
    assert.match(res.summary, /65536/);
    assert.match(res.summary, /never lowered/);
    const launch = await fs.readFile(layout.launchParams, 'utf8');
    assert.doesNotMatch(launch, /--max-model-len (?!65536)/);
    assert.equal((await readStatus(layout))?.state, 'failed');
    // A given endpoint serving a shorter context is refused the same way, before any request.
    const small = await startStandin({ maxModelLen: 32768 });
    try {
      const res2 = await sweep(sample.root, { benchmarks: ['MVBench'], conditions: ['v_8_s224'], endpoints: [small.url] });
      assert.equal(res2.exitCode, 1);
      assert.match(res2.summary, /max_model_len 32768 < 65536/);
    } finally {
      await small.stop();
    }
    const a = await readArtifacts(layout);
    assert.equal(a.rows.filter((r) => r.status === 'ok' && r.condition === 'v_8_s224').length, 0);
  });

  it('a request refused for its length at 65,536 (a square video at fps2) is a context failure and the run goes on', async () => {
    const sample = await copySamplePackage();
    const layout = new PackageLayout(sample.root);
    // Frames of the planned count and size, without decoding the long videos (the refusal depends on
    // nothing else): one grey JPEG per size.
    const jpegs = new Map<string, Promise<Buffer>>();
    const blank = (w: number, h: number) => {
      const k = `${w}x${h}`;
      if (!jpegs.has(k))
        jpegs.set(
          k,
          sharp({ create: { width: w, height: h, channels: 3, background: { r: 128, g: 128, b: 128 } } })
            .jpeg()
            .toBuffer(),
        );
      return jpegs.get(k)!;
    };
    const frames: FrameSource = {
      concurrency: 2,
      close: async () => undefined,
      prepare: async (_hash, _meta, requests) => ({
        decodeS: 0,
        release: () => undefined,
        get: (key) => {
          const plan = requests.find((r) => r.key === key)!.plan;
          return {
            ok: true,
            decodeS: 0,
            nFrames: plan.indices.length,
            images: async () => {
              const j = await blank(plan.width!, plan.height!);
              return plan.indices.map(() => ({ jpeg: j }));
            },
          };
        },
      }),
    };
    const base = await freePortRange(2);
    const res = await withEnv({ VLLM_BIN: FAKE_VLLM }, () =>
      runSweep(
        runOptionsSchema.parse({
          package: sample.root,
          ngpu: 2,
          basePort: base,
          vllmBin: FAKE_VLLM,
          benchmarks: ['TimeScope'],
          conditions: ['v_fps2_s224'],
        }),
        { servers: defaultSweepDeps.servers, frames: async () => frames },
      ),
    );
    assert.equal(res.exitCode, 0, res.summary);
    const failures = (await fs.readFile(layout.failuresLog, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const context = failures.filter((f) => f.kind === 'context');
    // The dry run's prediction (SPEC §2.5) and the server agree on which requests do not fit.
    const before = await dryRun(shared.root, { benchmarks: ['TimeScope'], conditions: ['v_fps2_s224'] });
    const predicted = before.rows.reduce((s, r) => s + r.context_refusals, 0);
    assert.ok(predicted > 0);
    assert.equal(context.length, predicted);
    for (const f of context) {
      assert.match(f.message, /maximum model length of 65536/);
      assert.equal(f.attempts, 1, 'a context refusal is never retried');
    }
    assert.equal(failures.filter((f) => !['context', 'no_video'].includes(f.kind)).length, 0);
    assert.ok(res.added.ok > 0);

    // A second run asks the refused requests again. Until it does, its live status counts them as
    // failed before (as the dry run does), not as untouched work; once asked, they are failed again.
    const afterFirst = await dryRun(sample.root, { benchmarks: ['TimeScope'], conditions: ['v_fps2_s224'] });
    assert.equal(afterFirst.totals.failed_before, context.length);
    const seen: WorkerStatus[] = [];
    const again = await withEnv({ VLLM_BIN: FAKE_VLLM }, () =>
      runSweep(
        runOptionsSchema.parse({
          package: sample.root,
          ngpu: 2,
          basePort: base,
          vllmBin: FAKE_VLLM,
          benchmarks: ['TimeScope'],
          conditions: ['v_fps2_s224'],
        }),
        { servers: defaultSweepDeps.servers, frames: async () => frames },
        { onStatus: (st) => seen.push(st) },
      ),
    );
    assert.equal(again.exitCode, 0, again.summary);
    const first = seen[0];
    const last = seen[seen.length - 1];
    assert.equal(first.totals.failedBefore, context.length, 'the first status counts the earlier failures');
    assert.equal(
      first.cells.reduce((n, c) => n + c.failedBefore, 0),
      context.length,
    );
    assert.equal(first.totals.todo, context.length, 'they are still work for this run (the subset failedBefore)');
    assert.equal(last.totals.failedBefore, 0, 'asked again: resolved');
    assert.equal(
      last.cells.reduce((n, c) => n + c.failed, 0),
      context.length,
    );
  });

  it('a second run on a package whose lock is held by a live process is refused naming the pid (exit 2)', async () => {
    const sample = await copySamplePackage({ extract: false });
    const layout = new PackageLayout(sample.root);
    const lock = await acquireLock(layout, 'test');
    const errs: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    (process.stderr as { write: unknown }).write = (s: string) => {
      errs.push(String(s));
      return true;
    };
    let code: number;
    try {
      code = await cliMain(['run', '--package', sample.root, '--endpoints', 'http://127.0.0.1:9']);
    } finally {
      (process.stderr as { write: unknown }).write = write;
      await lock.release();
    }
    assert.equal(code, 2);
    assert.match(errs.join(''), new RegExp(`pid ${process.pid}`));
    void shared;
  });
});
