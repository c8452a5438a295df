// The item inspector's model on the sample package: what a condition sent and got back, read from the run's files;
// the frames the run wrote, and the same bytes made again by the frame pipeline once the run's store is gone.
import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { main } from '../../../../../src/cli/main';
import { inspectionText } from '../../../../../src/cli/verbs/inspect';
import { InputError } from '../../../../../src/core/errors';
import {
  inspectFrameStoreDir,
  inspectItem,
  itemInspectionSchema,
  readInspection,
  itemListSchema,
  listItems,
  type ItemInspection,
} from '../../../../../src/core/protocols/fp/inspect';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import { rawRecordSchema, type RawRecord } from '../../../../../src/core/protocols/fp/package/schemas';
import { buildPromptText } from '../../../../../src/core/protocols/fp/rules';
import { decodeFrameIndex } from '../../../../../src/core/protocols/fp/sample/frameCode';
import { defaultSweepDeps } from '../../../../../src/core/protocols/fp/sweep/adapters';
import { runSweep } from '../../../../../src/core/protocols/fp/sweep/sweep';
import { runOptionsSchema } from '../../../../../src/core/protocols/fp/sweep/runOptions';
import { copySamplePackage, getSamplePackage, SAMPLE_TIMEOUT_MS, type SampleFixture } from '../sample/fixture';
import { startStandin } from '../sweep/helpers';

/** The raw records of one file, read here on their own (the test's oracle, not the inspector's reader). */
async function rawRecords(layout: PackageLayout, condition: string, benchmark: string): Promise<RawRecord[]> {
  const text = await fs.readFile(layout.rawFile(condition, benchmark), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((l) => rawRecordSchema.parse(JSON.parse(l)));
}

/** `fpsweep inspect …` in this process, stdout and stderr captured. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const [out, err] = [process.stdout.write.bind(process.stdout), process.stderr.write.bind(process.stderr)];
  let stdout = '';
  let stderr = '';
  process.stdout.write = ((chunk: string | Uint8Array) => ((stdout += String(chunk)), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => ((stderr += String(chunk)), true)) as typeof process.stderr.write;
  try {
    return { code: await main(['inspect', ...args]), stdout, stderr };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
}

const byCondition = (m: ItemInspection, c: string) => {
  const found = m.conditions.find((x) => x.condition === c);
  assert.ok(found, `${m.item.item_id} has ${c}: ${m.conditions.map((x) => x.condition).join(', ')}`);
  return found;
};

describe('item inspector model (fpsweep inspect)', function () {
  this.timeout(180_000);
  let sample: SampleFixture;

  before(async function () {
    this.timeout(SAMPLE_TIMEOUT_MS);
    sample = await getSamplePackage();
  });

  it("shows the origin's rows as their raw records say: reply, letter, right or wrong, tokens, latency, server, frames and times", async () => {
    const mine = await copySamplePackage();
    const layout = new PackageLayout(mine.root);
    const row = sample.plan.existing.find((r) => r.condition === 'v_32')!;
    const raw = (await rawRecords(layout, 'v_32', row.benchmark)).find((r) => r.item_id === row.item_id)!;
    const m = await inspectItem(mine.root, { benchmark: row.benchmark, itemId: row.item_id, conditions: ['v_32', 'v_blind'], rebuild: false });
    const item = sample.plan.items.find((i) => i.benchmark === row.benchmark && i.item_id === row.item_id)!;
    assert.equal(m.promptText, buildPromptText(item.question, item.options));
    assert.deepEqual(
      m.conditions.slice(0, 2).map((c) => c.condition),
      ['v_32', 'v_blind'],
      'the asked pair first, in its order',
    );
    const c = byCondition(m, 'v_32');
    assert.deepEqual(
      [c.state, c.response, c.pred, c.correct, c.promptTokens, c.completionTokens, c.latencyS, c.endpoint, c.width, c.height],
      [
        'ok',
        raw.response,
        raw.pred,
        raw.correct === 1,
        raw.usage.prompt_tokens,
        raw.usage.completion_tokens,
        raw.latency_s,
        raw.endpoint,
        raw.meta.width,
        raw.meta.height,
      ],
    );
    assert.deepEqual(
      c.frames.map((f) => [f.index, f.timestamp]),
      raw.meta.frame_indices!.map((i, k) => [i, raw.meta.timestamps![k]]),
    );
    // The origin's frames were never in this package's store, and nothing was made: missing, and said why.
    assert.deepEqual([...new Set(c.frames.map((f) => f.source))], ['missing']);
    assert.match(c.problems.join('\n'), /--no-rebuild/);
    assert.equal(byCondition(m, 'v_blind').frames.length, 0);
    await assert.rejects(fs.stat(inspectFrameStoreDir(layout)), 'rebuild: false writes nothing');
  });

  it("read without a frame maker (the panel's first step, in its host): writes nothing, leaves the missing frames to the maker in silence", async () => {
    const mine = await copySamplePackage();
    const layout = new PackageLayout(mine.root);
    const row = sample.plan.existing.find((r) => r.condition === 'v_32')!;
    const ask = { benchmark: row.benchmark, itemId: row.item_id, conditions: ['v_32'] };
    const first = await readInspection(mine.root, ask, null);
    const c = byCondition(first, 'v_32');
    assert.deepEqual([...new Set(c.frames.map((f) => f.source))], ['missing']);
    assert.deepEqual(c.problems, [], 'nothing said: the frames are being made');
    assert.equal(first.rebuiltFrames, 0);
    await assert.rejects(fs.stat(inspectFrameStoreDir(layout)), 'the host wrote nothing');
    // The second step (the CLI's model): the same item, its frames made; all but the frames is the first step's.
    const made = await inspectItem(mine.root, ask);
    assert.equal(made.rebuiltFrames, c.frames.length);
    const withoutFrames = (m: ItemInspection) => ({ ...m, rebuiltFrames: 0, conditions: m.conditions.map((x) => ({ ...x, frames: [] })) });
    assert.deepEqual(withoutFrames(made), withoutFrames(first));
    assert.deepEqual(
      byCondition(made, 'v_32').frames.map((f) => [f.index, f.timestamp]),
      c.frames.map((f) => [f.index, f.timestamp]),
    );
  });

  it("makes an origin row's frames again with the frame pipeline: each JPEG is the stored frame the record names", async () => {
    const mine = await copySamplePackage();
    const row = sample.plan.existing.find((r) => r.condition === 'v_32')!;
    const m = await inspectItem(mine.root, { benchmark: row.benchmark, itemId: row.item_id });
    const c = byCondition(m, 'v_32');
    assert.equal(m.rebuiltFrames, c.frames.length);
    assert.deepEqual([...new Set(c.frames.map((f) => f.source))], ['rebuilt']);
    const decoded = await Promise.all(c.frames.map(async (f) => decodeFrameIndex(await fs.readFile(f.file!))));
    assert.deepEqual(
      decoded,
      c.frames.map((f) => f.index),
    );
    const again = await inspectItem(mine.root, { benchmark: row.benchmark, itemId: row.item_id });
    assert.equal(again.rebuiltFrames, 0, 'made once, then found in the inspector store');
  });

  it("shows the run's own JPEGs, and once the run's store is gone makes byte-identical ones", async () => {
    const mine = await copySamplePackage();
    const layout = new PackageLayout(mine.root);
    const server = await startStandin({ mediaPath: layout.frameStoreDir });
    try {
      const opts = { package: mine.root, endpoints: [server.url], decodeWorkers: 1, benchmarks: ['MVBench'], conditions: ['v_1', 'v_8_s224'] };
      const res = await runSweep(runOptionsSchema.parse(opts), defaultSweepDeps);
      assert.equal(res.exitCode, 0, res.summary);
    } finally {
      await server.stop();
    }
    const sent = (await rawRecords(layout, 'v_8_s224', 'MVBench')).find((r) => r.status === 'ok' && r.meta.frame_indices?.length)!;
    const ask = { benchmark: 'MVBench', itemId: sent.item_id, conditions: ['v_8_s224', 'v_1'] };
    const fromRun = await inspectItem(mine.root, ask);
    const runFiles = new Map<string, Buffer>();
    for (const cond of ['v_8_s224', 'v_1']) {
      const c = byCondition(fromRun, cond);
      assert.ok(c.frames.length > 0, `${cond} sent frames`);
      assert.deepEqual([...new Set(c.frames.map((f) => f.source))], ['run'], `${cond}: the run's JPEGs`);
      for (const f of c.frames) {
        assert.ok(f.file!.startsWith(layout.frameStoreDir + path.sep), f.file!);
        runFiles.set(`${cond}/${f.index}`, await fs.readFile(f.file!));
      }
    }
    // Only frames of the item's other conditions (the origin's rows) that this run did not write as well were made.
    const others = fromRun.conditions
      .filter((c) => !ask.conditions.includes(c.condition))
      .reduce((n, c) => n + c.frames.filter((f) => f.source === 'rebuilt').length, 0);
    assert.equal(fromRun.rebuiltFrames, others);

    // Both stores gone: every frame of every condition is made again, in one pass.
    await fs.rm(layout.frameStoreDir, { recursive: true });
    await fs.rm(inspectFrameStoreDir(layout), { recursive: true });
    const rebuilt = await inspectItem(mine.root, ask);
    assert.equal(
      rebuilt.rebuiltFrames,
      rebuilt.conditions.reduce((n, c) => n + c.frames.length, 0),
    );
    for (const cond of ['v_8_s224', 'v_1']) {
      for (const f of byCondition(rebuilt, cond).frames) {
        assert.equal(f.source, 'rebuilt');
        assert.ok(f.file!.startsWith(inspectFrameStoreDir(layout) + path.sep), f.file!);
        assert.ok((await fs.readFile(f.file!)).equals(runFiles.get(`${cond}/${f.index}`)!), `${cond} frame ${f.index}: the same bytes as the run's`);
      }
    }
  });

  it("lists a benchmark's items with their answer under one condition", async () => {
    const list = await listItems(sample.root, 'MVBench', 'v_32');
    const rows = sample.plan.existing.filter((r) => r.benchmark === 'MVBench' && r.condition === 'v_32').map((r) => r.item_id);
    assert.equal(list.items.length, sample.plan.items.filter((i) => i.benchmark === 'MVBench').length);
    assert.deepEqual(
      list.items
        .filter((i) => i.state === 'ok')
        .map((i) => i.item_id)
        .sort(),
      rows.sort(),
    );
    assert.ok(list.items.filter((i) => i.state === 'none').every((i) => i.pred === null && i.correct === null));
  });

  it('refuses an unknown item, benchmark or condition name as the input error it is', async () => {
    await assert.rejects(inspectItem(sample.root, { benchmark: 'MVBench', itemId: 'no-such-item', rebuild: false }), InputError);
    await assert.rejects(inspectItem(sample.root, { benchmark: 'NoSuchBench', itemId: 'x', rebuild: false }), InputError);
    const any = sample.plan.existing[0];
    await assert.rejects(inspectItem(sample.root, { benchmark: any.benchmark, itemId: any.item_id, conditions: ['v_huge'], rebuild: false }), InputError);
    await assert.rejects(listItems(sample.root, '../MVBench', 'v_32'), InputError);
  });

  it('fpsweep inspect prints the model (--json) the extension reads, the list without --item, and exit 2 for bad input', async () => {
    const row = sample.plan.existing.find((r) => r.condition === 'v_32')!;
    const pkg = ['--package', sample.root, '--benchmark', row.benchmark];
    const one = await cli([...pkg, '--item', row.item_id, '--conditions', 'v_32,v_blind', '--json', '--no-rebuild']);
    assert.equal(one.code, 0, one.stderr);
    const model = itemInspectionSchema.parse(JSON.parse(one.stdout));
    assert.deepEqual(model, await inspectItem(sample.root, { benchmark: row.benchmark, itemId: row.item_id, conditions: ['v_32', 'v_blind'], rebuild: false }));
    const text = await cli([...pkg, '--item', row.item_id, '--no-rebuild']);
    assert.match(text.stdout, /^v_32: ok /m);
    // Times rounded for people: a raw record's float (a stand-in run wrote 0.053870816000002375) to the millisecond.
    const latencies = [...text.stdout.matchAll(/latency (\S+) s/g)].map((m) => m[1]);
    assert.ok(latencies.length > 0 && latencies.every((l) => /^(—|\d+\.\d{3})$/.test(l)), `latencies: ${latencies.join(', ')}`);
    const long = inspectionText({ ...model, conditions: model.conditions.map((c) => ({ ...c, latencyS: 0.053870816000002375 })) });
    assert.match(long, /latency 0\.054 s/);
    assert.doesNotMatch(long, /0\.0538/);
    const list = await cli([...pkg, '--condition', 'v_32', '--json']);
    assert.equal(itemListSchema.parse(JSON.parse(list.stdout)).items.length, (await listItems(sample.root, row.benchmark, 'v_32')).items.length);
    assert.equal((await cli(pkg)).code, 2);
    const unknown = await cli([...pkg, '--item', 'no-such-item']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no item no-such-item in \S+\.jsonl/);
  });
});
