import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { run } from '../../../../../src/cli/verbs/dryRun';
import { dryRun, formatDryRunTable } from '../../../../../src/core/protocols/fp/dryrun/dryRun';
import { tempDir, writePackage } from '../plan/fixture';

/** Runs the verb with stdout/stderr captured. */
async function runVerb(args: string[], env: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const saved = { out: process.stdout.write, err: process.stderr.write };
  const savedEnv: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) {
    savedEnv[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  process.stdout.write = ((s: string) => (out.push(String(s)), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => (err.push(String(s)), true)) as typeof process.stderr.write;
  try {
    const code = await run(args);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    for (const [k, v] of Object.entries(savedEnv)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

const NO_KNOBS = { BENCH: undefined, CONDS: undefined, PILOT: undefined };

describe('dryrun', () => {
  let root: string;
  before(async () => {
    root = await tempDir();
    await writePackage(root, {
      benchmarks: {
        MVBench: [
          { item_id: 'm1', video_id: 'v1', hash: 'h1' },
          { item_id: 'm2', video_id: 'v2', hash: 'h2' },
          { item_id: 'm3', video_id: 'v3' },
        ],
        Other: [{ item_id: 'o1', video_id: 'v4', hash: 'h4' }],
      },
      videos: [
        { hash: 'h1', width: 1280, height: 720, nFrames: 100 },
        { hash: 'h2', width: 1280, height: 720, nFrames: 10 },
        { hash: 'h4', width: 854, height: 480, nFrames: 300 },
      ],
      csv: 'item_id,benchmark,condition,status\nm1,MVBench,v_1,ok\n',
    });
    // one malformed item line: reported on stderr with file:line, the others still counted
    await fs.appendFile(path.join(root, 'items', 'samples', 'MVBench.jsonl'), '{"item_id": "m4"}\n');
  });

  it('--json prints one object {rows, totals} with the SPEC keys', async () => {
    const res = await runVerb(['--package', root, '--json', '--conds', 'v_1,v_fps1_s224,v_32_s448'], NO_KNOBS);
    assert.equal(res.code, 0);
    const lines = res.stdout.trim().split('\n');
    assert.equal(lines.length, 1, 'exactly one JSON line');
    const json = JSON.parse(lines[0]);
    assert.deepEqual(Object.keys(json), ['rows', 'totals']);
    const keys = ['benchmark', 'condition', 'todo', 'NA', 'reuse', 'done', 'no_video', 'bad_meta', 'context_refusals', 'failed_before'];
    for (const r of json.rows) assert.deepEqual(Object.keys(r), keys);
    const row = (b: string, c: string) => json.rows.find((r: { benchmark: string; condition: string }) => r.benchmark === b && r.condition === c);
    assert.deepEqual(row('MVBench', 'v_1'), {
      benchmark: 'MVBench',
      condition: 'v_1',
      todo: 1,
      NA: 0,
      reuse: 0,
      done: 1,
      no_video: 1,
      bad_meta: 0,
      context_refusals: 0,
      failed_before: 0,
    });
    assert.deepEqual(row('MVBench', 'v_fps1_s224'), {
      benchmark: 'MVBench',
      condition: 'v_fps1_s224',
      todo: 1,
      NA: 1,
      reuse: 0,
      done: 0,
      no_video: 1,
      bad_meta: 0,
      context_refusals: 0,
      failed_before: 0,
    });
    assert.equal(row('Other', 'v_32_s448').reuse, 1);
    assert.equal(row('Other', 'v_32').todo, 1, 'v_32 added for the reuse row');
    assert.equal(json.rows.length, 7);
    assert.equal(
      json.totals.todo,
      json.rows.reduce((n: number, r: { todo: number }) => n + r.todo, 0),
    );
    assert.deepEqual(Object.keys(json.totals), keys.slice(2));
    assert.match(res.stderr, /MVBench\.jsonl:4: .*question/);
    assert.match(res.stderr, /v_32 added/);
  });

  it('takes BENCH and CONDS from the environment, and --bench beats them', async () => {
    const env = await runVerb(['--package', root, '--json'], { BENCH: 'Other', CONDS: 'v_blind', PILOT: undefined });
    assert.deepEqual(
      JSON.parse(env.stdout).rows.map((r: { benchmark: string; condition: string }) => `${r.benchmark}/${r.condition}`),
      ['Other/v_blind'],
    );
    const flag = await runVerb(['--package', root, '--json', '--bench', 'MVBench'], { BENCH: 'Other', CONDS: 'v_blind', PILOT: undefined });
    assert.deepEqual(
      JSON.parse(flag.stdout).rows.map((r: { benchmark: string }) => r.benchmark),
      ['MVBench'],
    );
  });

  it('--pilot on a package without the pilot benchmarks is a clear input error', async () => {
    await assert.rejects(runVerb(['--package', root, '--pilot'], NO_KNOBS), /unknown benchmark\(s\) LVBench, TimeScope/);
  });

  it('prints an aligned table with totals', async () => {
    const report = await dryRun(root, { conditions: ['v_1', 'v_128_s224'] });
    const table = formatDryRunTable(report);
    const lines = table.split('\n');
    assert.match(lines[0], /^benchmark\s+condition\s+todo\s+NA\s+reuse\s+done\s+no_video\s+bad_meta\s+ctx_refusals\s+failed_before$/);
    assert.equal(new Set(lines.filter((l) => !l.startsWith('-')).map((l) => l.length)).size, 1, 'all lines the same width');
    assert.match(lines[lines.length - 1], /^TOTAL\s+4\s+1\s+0\s+1\s+2\s+0\s+0\s+0$/);
  });

  it('counts units still to write whose last attempt failed (failures.jsonl), and reports a bad failure line', async () => {
    const failures = path.join(root, 'data', 'logs', 'failures.jsonl');
    await fs.mkdir(path.dirname(failures), { recursive: true });
    const line = (item: string, condition: string, kind: string) =>
      JSON.stringify({
        benchmark: 'MVBench',
        item_id: item,
        condition,
        kind,
        message: 'x',
        endpoint: null,
        attempts: 1,
        ts: '2026-01-01T00:00:00Z',
      }) + '\n';
    try {
      await fs.writeFile(
        failures,
        line('m2', 'v_128_s224', 'context') + // still todo: failed before
          line('m1', 'v_1', 'request') + // m1 × v_1 has a row since: done, not failed
          line('m3', 'v_128_s224', 'no_video') + // no_video is its own count
          '{"benchmark": "MVBench"}\n',
      );
      const report = await dryRun(root, { conditions: ['v_1', 'v_128_s224'] });
      const row = (c: string) => report.rows.find((r) => r.benchmark === 'MVBench' && r.condition === c)!;
      assert.equal(row('v_128_s224').failed_before, 0, 'm2 is NA at v_128 (too short), so nothing to ask again');
      assert.equal(row('v_1').failed_before, 0);
      assert.ok(
        report.problems.some((p) => p.file === failures && p.line === 4),
        'the bad line is reported with file and line',
      );
      await fs.writeFile(failures, line('m1', 'v_128_s224', 'context') + line('m2', 'v_1', 'server_down'));
      const again = await dryRun(root, { conditions: ['v_1', 'v_128_s224'] });
      const row2 = (c: string) => again.rows.find((r) => r.benchmark === 'MVBench' && r.condition === c)!;
      assert.deepEqual([row2('v_128_s224').failed_before, row2('v_1').failed_before], [1, 1]);
      assert.equal(again.totals.failed_before, 2);
      assert.ok(row2('v_1').todo >= row2('v_1').failed_before, 'failed_before is a subset of todo + reuse');
    } finally {
      await fs.rm(failures, { force: true });
    }
  });
});
