import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { InputError } from '../../../../../src/core/errors';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import { readResultsCsv, scanResultsCsv, storedAnswer } from '../../../../../src/core/protocols/fp/package/resultsCsv';
import { setAsideTornTail } from '../../../../../src/core/protocols/fp/package/tornTail';
import { tempDir } from '../plan/fixture';

async function layoutWithCsv(text: string | Buffer): Promise<PackageLayout> {
  const layout = new PackageLayout(await tempDir());
  await fs.mkdir(layout.resultsDir, { recursive: true });
  await fs.writeFile(layout.resultsCsv, text);
  return layout;
}

describe('package/resultsCsv', () => {
  it('reads any column order, keeps extra columns, builds the done-set and the v_32 answers', async () => {
    const layout = await layoutWithCsv(
      [
        'condition,extra_note,item_id,pred,benchmark,correct,status',
        'v_32,"a, quoted note",i1,C,B1,0,ok',
        'v_1,,i1,A,B1,1,ok',
        'v_32,,i2,D,B2,1,ok',
        'v_fps1_s224,,i3,,B1,,NA',
        '',
      ].join('\n'),
    );
    const csv = await readResultsCsv(layout.resultsCsv, { keepRows: true });
    assert.deepEqual(csv.header, ['condition', 'extra_note', 'item_id', 'pred', 'benchmark', 'correct', 'status']);
    assert.equal(csv.rows.length, 4);
    assert.deepEqual(csv.rows[0], ['v_32', 'a, quoted note', 'i1', 'C', 'B1', '0', 'ok']);
    assert.equal(csv.done.size, 4);
    assert.ok(csv.done.has('B1', 'i1', 'v_32'));
    assert.ok(csv.done.has('B1', 'i3', 'v_fps1_s224'));
    assert.ok(!csv.done.has('B2', 'i1', 'v_32'), 'keys are per benchmark');
    assert.ok(!csv.done.has('B1', 'i1', 'v_32_s224'));
    assert.equal(csv.done.count('B1', 'v_32'), 1);
    assert.deepEqual(storedAnswer(csv, 'B1', 'i1'), { pred: 'C', correct: '0' });
    assert.deepEqual(storedAnswer(csv, 'B2', 'i2'), { pred: 'D', correct: '1' });
    assert.equal(storedAnswer(csv, 'B1', 'i3'), undefined, 'only v_32 rows are indexed');
    assert.equal(csv.torn, null);
    assert.deepEqual(csv.problems, []);
  });

  it('a missing CSV is empty; a header without the key columns is an InputError', async () => {
    const layout = new PackageLayout(await tempDir());
    const empty = await readResultsCsv(layout.resultsCsv);
    assert.equal(empty.header, null);
    assert.equal(empty.done.size, 0);
    const bad = await layoutWithCsv('bench,item,condition\nB,i,v_1\n');
    await assert.rejects(readResultsCsv(bad.resultsCsv), (e: unknown) => e instanceof InputError && /no benchmark, item_id column/.test(e.message));
  });

  it('reports duplicate and ragged middle rows with their line, and keeps them done', async () => {
    const layout = await layoutWithCsv('benchmark,item_id,condition,status\nB,i1,v_1,ok\nB,i1,v_1,ok\nB,i2,v_1\nB,i3,v_1,ok\n');
    const csv = await readResultsCsv(layout.resultsCsv);
    assert.equal(csv.done.size, 3);
    assert.deepEqual(
      csv.problems.map((p) => p.line),
      [3, 4],
    );
    assert.match(csv.problems[0].message, /second row for \(B, i1, v_1\)/);
    assert.match(csv.problems[1].message, /3 fields, the header 4/);
  });

  describe('torn last line', () => {
    const head = 'benchmark,item_id,condition,status,pred\nB,i1,v_1,ok,A\n';
    const cases: [string, string, RegExp][] = [
      ['no newline at the end', 'B,i2,v_1,o', /does not end with a newline/],
      ['a complete row without its newline', 'B,i2,v_1,ok,A', /does not end with a newline/],
      ['wrong field count', 'B,i2,v_1\n', /has 3 fields, the header 5/],
      ['cut inside a quoted field', 'B,i2,v_1,ok,"A\n', /does not parse/],
    ];
    for (const [name, tail, reason] of cases) {
      it(`detects ${name} and keeps it out of the done-set`, async () => {
        const layout = await layoutWithCsv(head + tail);
        const csv = await readResultsCsv(layout.resultsCsv);
        assert.ok(csv.torn, 'torn tail found');
        assert.match(csv.torn.reason, reason);
        assert.equal(csv.torn.offset, Buffer.byteLength(head));
        assert.equal(csv.torn.bytes.toString(), tail);
        assert.equal(csv.done.size, 1);
        assert.ok(!csv.done.has('B', 'i2', 'v_1'));
      });
    }

    it('a complete file has no torn tail', () => {
      const scanned = scanResultsCsv(Buffer.from(head), 'f');
      assert.equal(scanned.torn, null);
      assert.equal(scanned.completeLength, Buffer.byteLength(head));
      assert.equal(scanned.records.length, 1);
    });

    it('setAsideTornTail moves the bytes exactly and leaves the CSV ending on a complete line', async () => {
      // non-ASCII and a CR so "exactly" means bytes, not characters
      const tail = Buffer.from('B,i2,v_1,ok,"é\r', 'utf8');
      const layout = await layoutWithCsv(Buffer.concat([Buffer.from(head), tail]));
      const first = await setAsideTornTail(layout);
      assert.ok(first.torn);
      assert.equal(first.alreadyThere, false);
      assert.equal(await fs.readFile(layout.resultsCsv, 'utf8'), head);
      assert.deepEqual(await fs.readFile(layout.resultsCsvTorn), Buffer.concat([tail, Buffer.from('\n')]));
      // a second start finds nothing to move
      const second = await setAsideTornTail(layout);
      assert.equal(second.torn, null);
      assert.deepEqual(await fs.readFile(layout.resultsCsvTorn), Buffer.concat([tail, Buffer.from('\n')]));
      // a later torn tail is appended after the first one
      await fs.appendFile(layout.resultsCsv, 'B,i9,v_1,o');
      await setAsideTornTail(layout);
      assert.equal(await fs.readFile(layout.resultsCsvTorn, 'utf8'), `${tail.toString()}\nB,i9,v_1,o\n`);
      assert.equal(await fs.readFile(layout.resultsCsv, 'utf8'), head);
    });

    it('a crash between append and truncate does not copy the tail twice', async () => {
      const layout = await layoutWithCsv(head + 'B,i2,v_1,o');
      await fs.writeFile(layout.resultsCsvTorn, 'older\nB,i2,v_1,o\n'); // step 1 happened, step 2 did not
      const res = await setAsideTornTail(layout);
      assert.equal(res.alreadyThere, true);
      assert.equal(await fs.readFile(layout.resultsCsvTorn, 'utf8'), 'older\nB,i2,v_1,o\n');
      assert.equal(await fs.readFile(layout.resultsCsv, 'utf8'), head);
    });

    it('a header cut before its newline is set aside whole', async () => {
      const layout = await layoutWithCsv('benchmark,item_');
      const csv = await readResultsCsv(layout.resultsCsv);
      assert.equal(csv.header, null);
      assert.equal(csv.torn?.offset, 0);
      await setAsideTornTail(layout);
      assert.equal((await fs.stat(layout.resultsCsv)).size, 0);
      assert.equal(await fs.readFile(path.join(layout.resultsDir, 'conditions_results.csv.torn'), 'utf8'), 'benchmark,item_\n');
    });
  });
});
