import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { buildReport, writeReport } from '../../../../../src/core/protocols/fp/report/buildReport';
import { reportMarkdown } from '../../../../../src/core/protocols/fp/report/markdown';
import { reportSchema } from '../../../../../src/core/protocols/fp/report/schema';
import { pyFixed } from '../../../../../src/core/protocols/fp/report/pyFormat';
import { diagnose, groupFailures } from '../../../../../src/core/protocols/fp/report/failures';
import { makeReportPackage, SEED_TIMING_SCRIPT, LAUNCH_LINES, LAST_WRITE_S, RUN_START } from './fixture';
import { removeTempDirs } from '../returns/tmpDirs';

// The seed script's output on the fixture, from python3 (kept here so the test runs without Python too).
const SEED_OUTPUT = [
  'v_8_s224         infer=    8  infer_s/item=  0.12  decode_s/item=  0.06  prompt_tok/item=       2',
  'v_blind          infer=    0  infer_s/item=  0.00  decode_s/item=  0.00  prompt_tok/item=       0',
  'v_fps0.25_s224   infer=    3  infer_s/item=  2.50  decode_s/item=  0.38  prompt_tok/item=   50000',
  'v_fps1_s224      infer=   10  infer_s/item=  3.11  decode_s/item=  0.94  prompt_tok/item=   11700',
  'v_fps2_s224      infer=    1  infer_s/item=  2.67  decode_s/item=  0.01  prompt_tok/item=   57000',
];

const noDryRun = async () => [];

function hasPython(): boolean {
  return spawnSync('python3', ['--version']).status === 0;
}

describe('report', function () {
  this.timeout(20000);

  it("timing table: the seed script's exact lines (half-even rounding included) and exact sums", async () => {
    const dir = await makeReportPackage();
    const r = await buildReport(dir, { todo: noDryRun });
    assert.deepEqual(
      r.timing.rows.map((t) => t.text),
      SEED_OUTPUT,
    );
    const fps1 = r.timing.rows.find((t) => t.condition === 'v_fps1_s224')!;
    assert.equal(fps1.infer, 10);
    assert.equal(fps1.infer_s, 1.0 + 30.123);
    assert.equal(fps1.infer_s_per_item, (1.0 + 30.123) / 10);
    assert.equal(fps1.prompt_tok_per_item, 11700.4);
    assert.equal(r.timing.rows.find((t) => t.condition === 'v_blind')!.infer_s_per_item, 0);
    assert.deepEqual(r.timing.benchmarks, ['MVBench', 'LVBench']);
  });

  it("timing table equals python3 running the seed's script on the same file", async function () {
    if (!hasPython()) this.skip();
    const dir = await makeReportPackage();
    const py = execFileSync('python3', ['-c', SEED_TIMING_SCRIPT], { cwd: dir }).toString().trimEnd().split('\n');
    const r = await buildReport(dir, { todo: noDryRun });
    assert.deepEqual(
      r.timing.rows.map((t) => t.text),
      py,
    );
  });

  it('pyFixed rounds exact ties half to even like Python, unlike toFixed', () => {
    assert.equal(pyFixed(0.125, 2), '0.12');
    assert.equal((0.125).toFixed(2), '0.13');
    assert.equal(pyFixed(2.5, 0), '2');
    assert.equal(pyFixed(3.5, 0), '4');
    assert.equal(pyFixed(0.375, 2), '0.38');
    assert.equal(pyFixed(2.675, 2), '2.67');
    assert.equal(pyFixed(1.005, 2), '1.00');
    assert.equal(pyFixed(9.995, 2), '9.99');
    assert.equal(pyFixed(99.5, 0), '100');
  });

  it('SPEC §6 checks all pass on a clean pilot', async () => {
    const dir = await makeReportPackage();
    const r = await buildReport(dir, { todo: noDryRun });
    const byId = Object.fromEntries(r.checks.map((c) => [c.id, c]));
    assert.deepEqual(
      r.checks.map((c) => [c.id, c.status]),
      [
        ['capped_ctx_rule', 'pass'],
        ['n_max_formula', 'pass'],
        ['n_max_16_9', 'pass'],
        ['mvbench_never_capped', 'pass'],
        ['long_videos_capped', 'pass'],
      ],
    );
    assert.equal(byId.capped_ctx_rule.checked, 4);
    assert.equal(byId.mvbench_never_capped.checked, 2);
    assert.match(
      byId.long_videos_capped.detail,
      /LVBench v_fps1_s224: 1\/1 capped; LVBench v_fps0\.25_s224: 0\/1 capped|LVBench v_fps0\.25_s224: 0\/1 capped; LVBench v_fps1_s224: 1\/1 capped/,
    );
    assert.deepEqual(r.rawRecords, { files: 5, records: 6 });
  });

  it('a record with capped_ctx false although n_grid > n_max fails the checks, with the item named', async () => {
    const dir = await makeReportPackage({ withViolation: true });
    const r = await buildReport(dir, { todo: noDryRun });
    const rule = r.checks.find((c) => c.id === 'capped_ctx_rule')!;
    assert.equal(rule.status, 'fail');
    assert.equal(rule.violations, 1);
    assert.deepEqual(
      rule.examples.map((e) => [e.benchmark, e.condition, e.item_id]),
      [['LVBench', 'v_fps1_s224', 'lv-2']],
    );
    assert.match(rule.examples[0].detail, /capped_ctx = false but n_grid 1024 > n_max 582/);
    const long = r.checks.find((c) => c.id === 'long_videos_capped')!;
    assert.equal(long.status, 'fail');
    assert.equal(long.examples[0].item_id, 'lv-2');
    assert.equal(r.checks.find((c) => c.id === 'mvbench_never_capped')!.status, 'pass');
  });

  it('rows added per condition: CSV rows since the first run, matched against raw records; origin rows left out', async () => {
    const dir = await makeReportPackage({ withViolation: true });
    const r = await buildReport(dir, { todo: noDryRun });
    assert.equal(r.rowsAdded.windowStart, RUN_START);
    assert.deepEqual(r.rowsAdded.rows, [
      { condition: 'v_fps0.25_s224', ok: 1, NA: 0, reuse: 0, total: 1, rawRecords: 1 },
      { condition: 'v_fps1_s224', ok: 4, NA: 0, reuse: 0, total: 4, rawRecords: 4 },
    ]);
    assert.equal(r.rowsAdded.total, 5);
    assert.deepEqual(r.rowsAdded.mismatches, []);
  });

  it('a row without its raw record shows as a mismatch', async () => {
    const dir = await makeReportPackage();
    await fs.appendFile(path.join(dir, 'results/conditions_results.csv'), `LVBench,lv-2,v_fps1_s224,ok,A,A,1,582,56000,9.0,2026-12-01T10:30:00.000Z\n`);
    const r = await buildReport(dir, { todo: noDryRun });
    assert.deepEqual(r.rowsAdded.mismatches, ['v_fps1_s224']);
  });

  it('wall time per run: start from run_identity to the last record or failure', async () => {
    const dir = await makeReportPackage();
    const r = await buildReport(dir, { todo: noDryRun });
    assert.equal(r.wallTime.seconds, LAST_WRITE_S);
    assert.equal(r.wallTime.runs.length, 1);
    assert.equal(r.wallTime.runs[0].run_id, 'r1');
  });

  it('failures: count, groups with example ids, and the restart/OOM diagnosis with the log line', async () => {
    const dir = await makeReportPackage();
    const r = await buildReport(dir, { todo: noDryRun });
    assert.equal(r.failures.total, 122);
    assert.deepEqual(r.failures.byKind, { server_down: 120, no_video: 2 });
    assert.deepEqual(r.failures.groups[0], {
      benchmark: 'LVBench',
      condition: 'v_fps2_s224',
      kind: 'server_down',
      count: 120,
      exampleItemIds: ['lv-x0', 'lv-x1', 'lv-x2', 'lv-x3', 'lv-x4'],
      exampleMessage: 'connection refused',
    });
    assert.equal(r.failures.diagnoses.length, 1);
    const d = r.failures.diagnoses[0];
    assert.equal(d.benchmark, 'LVBench');
    assert.equal(d.failures, 120);
    assert.match(d.message, /point at a vLLM server restart; logs show out-of-memory .*lower MAX_SEQS/);
    assert.deepEqual(
      d.logLines.map((l) => [path.basename(l.file), l.line]),
      [['vllm_gpu0.log', 3]],
    );
    assert.match(d.logLines[0].text, /torch\.OutOfMemoryError: CUDA out of memory/);
  });

  it('launch lines: exactly as written, one per server, restarts counted', async () => {
    const dir = await makeReportPackage();
    const r = await buildReport(dir, { todo: noDryRun });
    assert.deepEqual(r.launch.lines, LAUNCH_LINES);
    assert.equal(r.launch.servers, 2);
    assert.equal(r.launch.launches, 3);
  });

  it('extrapolation: todo × pilot seconds per item, over servers, then over the pilot concurrency', async () => {
    const dir = await makeReportPackage();
    const todo = async () => [
      { benchmark: 'LVBench', condition: 'v_fps1_s224', todo: 100 },
      { benchmark: 'MVBench', condition: 'v_fps1_s224', todo: 200 },
      { benchmark: 'LVBench', condition: 'v_8_s224', todo: 50 },
      { benchmark: 'LVBench', condition: 'v_32_s336', todo: 10 },
    ];
    const r = await buildReport(dir, { todo });
    const x = r.extrapolation;
    assert.equal(x.available, true);
    assert.equal(x.servers, 2);
    assert.equal(x.todoTotal, 360);
    assert.deepEqual(x.untimedConditions, ['v_32_s336']);
    const request = 300 * (31.123 / 10) + 50 * (1.0 / 8);
    assert.ok(Math.abs(x.serialSeconds! - request / 2) < 1e-9);
    const inferTotal = 1.0 + 30.123 + 7.5 + 1.0 + 0 + 2.675;
    assert.ok(Math.abs(x.pilotConcurrency! - inferTotal / (LAST_WRITE_S * 2)) < 1e-12);
    assert.ok(Math.abs(x.estimatedSeconds! - request / 2 / (inferTotal / (LAST_WRITE_S * 2))) < 1e-6);
  });

  it('extrapolation uses the dry run by default (todo left after the pilot rows)', async () => {
    const dir = await makeReportPackage();
    const r = await buildReport(dir);
    assert.equal(r.extrapolation.available, true, r.extrapolation.reason ?? '');
    // 5 items, 3 of them already have a v_fps1_s224 row.
    assert.equal(r.extrapolation.rows.find((x) => x.condition === 'v_fps1_s224')!.todo, 2);
  });

  it('writes report.json (valid against the schema) and report.md under .fpsweep/reports', async () => {
    const dir = await makeReportPackage();
    const r = await buildReport(dir, { todo: noDryRun });
    const md = reportMarkdown(r);
    const out = await writeReport(dir, r, md);
    assert.equal(out.json, path.join(dir, '.fpsweep/reports/report.json'));
    reportSchema.parse(JSON.parse(await fs.readFile(out.json, 'utf8')));
    const text = await fs.readFile(out.md, 'utf8');
    for (const l of SEED_OUTPUT) assert.ok(text.includes(l));
    assert.ok(text.includes(LAUNCH_LINES[0]));
    assert.match(text, /\*\*122\*\* failure\(s\)/);
  });

  it('the CLI exits 1 when a check fails and 0 when none does', async function () {
    this.timeout(90_000); // three CLI processes, each compiling the sources through tsx
    const cli = path.join(__dirname, '../../../../../src/cli/main.ts');
    const bad = spawnSync(process.execPath, ['--import', 'tsx', cli, 'report', '--package', await makeReportPackage({ withViolation: true }), '--json']);
    assert.equal(bad.status, 1, bad.stderr.toString());
    assert.equal(reportSchema.parse(JSON.parse(bad.stdout.toString())).checks[0].status, 'fail');
    const pkg = await makeReportPackage();
    const full = spawnSync(process.execPath, ['--import', 'tsx', cli, 'report', '--package', pkg, '--full']);
    assert.equal(full.status, 0, full.stderr.toString());
    assert.match(full.stdout.toString(), /## Pilot timing \(seed §4\)/);
    // The terminal gets a summary and the report's path, not the whole report (hundreds of lines on a real sweep).
    const good = spawnSync(process.execPath, ['--import', 'tsx', cli, 'report', '--package', pkg]);
    assert.equal(good.status, 0, good.stderr.toString());
    const out = good.stdout.toString();
    assert.ok(out.split('\n').length <= 15, `${out.split('\n').length} lines:\n${out}`);
    assert.ok(out.startsWith(`report: ${path.join(pkg, '.fpsweep', 'reports', 'report.md')} (--full prints it here, --json its JSON)\n`), out);
    assert.match(out, /^checks: \d+ of \d+ not failing$/m);
    assert.match(out, /^rows added: \d+; failures: 122; todo: \d+ items$/m);
    assert.doesNotMatch(out, /## Pilot timing/);
    assert.ok(full.stdout.toString().split('\n').length > 3 * out.split('\n').length);
  });
});

describe('report: prompt-token prediction error', () => {
  it('usage.prompt_tokens − meta.predicted_prompt_tokens over answered records: count, mean, min, max, relative, by condition', async () => {
    const dir = await makeReportPackage();
    const rec = (item: string, condition: string, status: string, actual: number | null, predicted: number | null) =>
      JSON.stringify({
        benchmark: 'MVBench',
        item_id: item,
        condition,
        status,
        response: 'A',
        pred: 'A',
        answer: 'A',
        correct: 1,
        usage: { prompt_tokens: actual, completion_tokens: 1 },
        latency_s: 1,
        endpoint: 'http://127.0.0.1:8011',
        ts: RUN_START,
        meta: {
          n_frames_used: 8,
          frame_indices: null,
          timestamps: null,
          short_side: 224,
          width: 398,
          height: 224,
          tokens_per_frame: 97,
          capped: false,
          capped_ctx: null,
          n_grid: null,
          n_max: null,
          reused_from: null,
          predicted_prompt_tokens: predicted,
        },
      });
    await fs.mkdir(path.join(dir, 'results/p1_raw/v_8_s224'), { recursive: true });
    await fs.writeFile(
      path.join(dir, 'results/p1_raw/v_8_s224/MVBench__DIAG_V.jsonl'),
      [
        rec('mv-1', 'v_8_s224', 'ok', 1000, 990),
        rec('mv-2', 'v_8_s224', 'ok', 1000, 1010),
        rec('mv-3', 'v_8_s224', 'ok', 1000, 1000),
        rec('mv-4', 'v_8_s224', 'NA', null, null),
      ].join('\n') + '\n',
    );
    await fs.mkdir(path.join(dir, 'results/p1_raw/v_blind'), { recursive: true });
    await fs.writeFile(path.join(dir, 'results/p1_raw/v_blind/MVBench__DIAG_V.jsonl'), rec('mv-1', 'v_blind', 'ok', 60, 50) + '\n');
    const r = await buildReport(dir, { todo: noDryRun });
    const t = r.tokenPrediction;
    assert.equal(t.count, 4);
    assert.equal(t.mean, (10 - 10 + 0 + 10) / 4);
    assert.equal(t.min, -10);
    assert.equal(t.max, 10);
    assert.equal(t.meanRelative, (10 / 990 - 10 / 1010 + 0 + 10 / 50) / 4);
    assert.equal(t.maxAbsRelative, 0.2);
    assert.equal(t.withoutPrediction, 6, "the fixture's older answered records carry no prediction");
    assert.deepEqual(
      t.byCondition.map((c) => [c.condition, c.count, c.mean, c.min, c.max]),
      [
        ['v_8_s224', 3, 0, -10, 10],
        ['v_blind', 1, 10, 10, 10],
      ],
    );
    const md = reportMarkdown(r);
    assert.match(md, /## Prompt-token prediction/);
    assert.match(md, /\*\*4\*\* answered record\(s\): mean error \+2\.5 tokens \(min -10, max \+10\)/);
    assert.match(md, /\| v_blind \| 1 \| \+10\.0 \| \+10 \| \+10 \| \+20\.00 % \|/);
    assert.match(md, /6 answered record\(s\) lack usage\.prompt_tokens or the prediction/);
  });
});

describe('report failure diagnosis', () => {
  it('hundreds of context refusals or missing videos are not diagnosed as a server restart', async () => {
    const mk = (kind: 'context' | 'no_video' | 'request', n: number) =>
      Array.from({ length: n }, (_, i) => ({
        benchmark: 'B',
        item_id: `i${i}`,
        condition: 'v_fps2_s224',
        kind,
        message: 'm',
        endpoint: null,
        attempts: 1,
        ts: '2026-12-01T10:00:00Z',
      }));
    assert.equal(diagnose(groupFailures([...mk('context', 300), ...mk('no_video', 300)]).groups, []).length, 0);
    const d = diagnose(groupFailures([...mk('request', 150)]).groups, []);
    assert.equal(d.length, 1);
    assert.match(d[0].message, /no OOM or error line found/);
  });
});

after(removeTempDirs);
