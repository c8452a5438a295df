import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse } from 'csv-parse/sync';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import { readResultsCsv } from '../../../../../src/core/protocols/fp/package/resultsCsv';
import type { RawRecord } from '../../../../../src/core/protocols/fp/package/schemas';
import { ResultsWriter, DuplicateRowError } from '../../../../../src/core/protocols/fp/sweep/resultsWriter';
import { resumeResults } from '../../../../../src/core/protocols/fp/sweep/resume';
import { makeRunIdentity, writeRunIdentity } from '../../../../../src/core/runner/identity';
import { acquireLock, LockHeldError, readLock } from '../../../../../src/core/runner/lock';
import { setAsideTornJsonlTail } from '../../../../../src/core/runner/tornTail';

function raw(item: string, cond = 'v_8_s224', extra: Partial<RawRecord> = {}): RawRecord {
  return {
    benchmark: 'B1',
    item_id: item,
    condition: cond,
    status: 'ok',
    response: 'B',
    pred: 'B',
    answer: 'B',
    correct: 1,
    usage: { prompt_tokens: 700, completion_tokens: 1 },
    latency_s: 0.1234,
    endpoint: 'http://127.0.0.1:1',
    ts: new Date().toISOString(),
    meta: {
      n_frames_used: 8,
      frame_indices: [1, 2, 3, 4, 5, 6, 7, 8],
      timestamps: [0, 1, 2, 3, 4, 5, 6, 7],
      short_side: 224,
      width: 398,
      height: 224,
      tokens_per_frame: 97,
      capped: false,
      capped_ctx: null,
      n_grid: null,
      n_max: null,
      reused_from: null,
    },
    ...extra,
  };
}

async function tmpPackage(): Promise<PackageLayout> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-writers-'));
  await fs.mkdir(path.join(root, 'items', 'samples'), { recursive: true });
  return new PackageLayout(root);
}

async function csvRows(layout: PackageLayout): Promise<string[][]> {
  return parse(await fs.readFile(layout.resultsCsv), { relax_column_count: true });
}

describe('runner writers and resume', () => {
  it('a new CSV gets the SPEC header; the raw record is on disk before its row; NA rows leave numbers empty', async () => {
    const layout = await tmpPackage();
    const csv = await readResultsCsv(layout.resultsCsv);
    const w = await ResultsWriter.open(layout, csv.header, csv.done);
    await w.write(raw('i1'));
    await w.write(
      raw('i2', 'v_fps1_s224', {
        status: 'NA',
        response: null,
        pred: null,
        correct: null,
        usage: { prompt_tokens: null, completion_tokens: null },
        latency_s: null,
        endpoint: null,
        meta: {
          n_frames_used: null,
          frame_indices: null,
          timestamps: null,
          short_side: null,
          width: null,
          height: null,
          tokens_per_frame: null,
          capped: null,
          capped_ctx: null,
          n_grid: null,
          n_max: null,
          reused_from: null,
        },
      }),
    );
    await w.close();
    const rows = await csvRows(layout);
    assert.deepEqual(rows[0], ['benchmark', 'item_id', 'condition', 'status', 'pred', 'answer', 'correct', 'n_frames', 'prompt_tokens', 'latency_s', 'ts']);
    assert.deepEqual(rows[1].slice(0, 10), ['B1', 'i1', 'v_8_s224', 'ok', 'B', 'B', '1', '8', '700', '0.123']);
    assert.deepEqual(rows[2].slice(0, 10), ['B1', 'i2', 'v_fps1_s224', 'NA', '', 'B', '', '', '', '']);
    const rawLines = (await fs.readFile(layout.rawFile('v_8_s224', 'B1'), 'utf8')).trim().split('\n');
    assert.equal(rawLines.length, 1);
    assert.equal(JSON.parse(rawLines[0]).item_id, 'i1');
  });

  it('an existing CSV keeps its own header and column order; unknown columns stay empty', async () => {
    const layout = await tmpPackage();
    await fs.mkdir(layout.resultsDir, { recursive: true });
    await fs.writeFile(layout.resultsCsv, 'condition,item_id,extra,benchmark,correct,pred\nv_32,old,x,B1,0,A\n');
    const csv = await readResultsCsv(layout.resultsCsv);
    const w = await ResultsWriter.open(layout, csv.header, csv.done);
    await w.write(raw('i1'));
    await assert.rejects(w.write(raw('i1')), DuplicateRowError);
    await assert.rejects(w.write(raw('old', 'v_32')), DuplicateRowError);
    await w.close();
    const rows = await csvRows(layout);
    assert.deepEqual(rows[0], ['condition', 'item_id', 'extra', 'benchmark', 'correct', 'pred']);
    assert.deepEqual(rows[2], ['v_8_s224', 'i1', '', 'B1', '1', 'B']);
    assert.equal(rows.length, 3);
  });

  it('resume: torn CSV and raw tails go to side files; a raw record without its row gets the row, never a second raw line', async () => {
    const layout = await tmpPackage();
    await writeRunIdentity(layout, makeRunIdentity('r1', {}, []));
    let csv = await readResultsCsv(layout.resultsCsv);
    const w = await ResultsWriter.open(layout, csv.header, csv.done);
    await w.write(raw('i1'));
    await w.write(raw('i2'));
    await w.close();
    // crash between the two writes of i3: its raw line is there, its row is not; then a torn raw write of i4
    const rawFile = layout.rawFile('v_8_s224', 'B1');
    await fs.appendFile(rawFile, JSON.stringify(raw('i3')) + '\n');
    const torn = JSON.stringify(raw('i4')).slice(0, 50);
    await fs.appendFile(rawFile, torn);
    await fs.appendFile(layout.resultsCsv, 'B1,i9,v_8_s224,ok,"B');
    const before = (await fs.stat(layout.resultsCsv)).mtimeMs;
    await fs.utimes(rawFile, new Date(), new Date(before + 10));
    const res = await resumeResults(layout);
    await res.writer.close();
    assert.deepEqual(
      res.report.completed.map((r) => r.item_id),
      ['i3'],
    );
    assert.equal(res.report.rawTorn.length, 1);
    assert.ok(res.report.csvTorn);
    assert.equal(await fs.readFile(`${rawFile}.torn`, 'utf8'), torn + '\n');
    assert.match(await fs.readFile(layout.resultsCsvTorn, 'utf8'), /i9/);
    csv = await readResultsCsv(layout.resultsCsv);
    assert.equal(csv.torn, null);
    assert.deepEqual(
      ['i1', 'i2', 'i3'].map((i) => csv.done.has('B1', i, 'v_8_s224')),
      [true, true, true],
    );
    const rawItems = (await fs.readFile(rawFile, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).item_id);
    assert.deepEqual(rawItems, ['i1', 'i2', 'i3']);
    // a second resume changes nothing
    const again = await resumeResults(layout);
    await again.writer.close();
    assert.equal(again.report.completed.length, 0);
    assert.equal((await csvRows(layout)).length, 4);
  });

  it("raw records older than the first fpsweep run (the origin's) are never turned into rows", async () => {
    const layout = await tmpPackage();
    const rawFile = layout.rawFile('v_32', 'B1');
    await fs.mkdir(path.dirname(rawFile), { recursive: true });
    await fs.writeFile(rawFile, JSON.stringify(raw('o1', 'v_32', { ts: '2025-01-01T00:00:00.000Z' })) + '\n');
    await writeRunIdentity(layout, makeRunIdentity('r1', {}, []));
    const res = await resumeResults(layout);
    await res.writer.close();
    assert.equal(res.report.completed.length, 0);
  });

  it('a JSONL file ending in a whole line is left alone', async () => {
    const layout = await tmpPackage();
    const f = path.join(layout.root, 'x.jsonl');
    await fs.writeFile(f, '{"a":1}\n{"b":2}\n');
    assert.equal(await setAsideTornJsonlTail(f), null);
    await fs.writeFile(f, '{"a":1}\n{"b":\n');
    const r = await setAsideTornJsonlTail(f);
    assert.match(r!.reason, /not valid JSON/);
    assert.equal(await fs.readFile(f, 'utf8'), '{"a":1}\n');
  });
});

describe('runner lock', () => {
  it('refuses a second holder naming the pid, and takes over a stale lock', async () => {
    const layout = await tmpPackage();
    const held = await acquireLock(layout, 'r1');
    await assert.rejects(acquireLock(layout, 'r2'), (err: Error) => err instanceof LockHeldError && err.message.includes(`pid ${process.pid}`));
    await held.release();
    // a lock left by a process that is gone
    await fs.writeFile(layout.lockFile, JSON.stringify({ pid: 2 ** 22 + 12345, hostname: os.hostname(), startedAt: 'then' }));
    const messages: string[] = [];
    const again = await acquireLock(layout, 'r3', (m) => messages.push(m));
    assert.match(messages.join(), /stale lock/);
    assert.equal((await readLock(layout))!.pid, process.pid);
    await again.release();
    assert.equal(await readLock(layout), null);
  });
});
