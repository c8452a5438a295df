import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { sequenceMatcherRatio } from '../../../../src/core/protocols/avtime/difflib';
import { type PctEvent, mergeAdjacent, parseEventLines, pctToMs, sortEvents } from '../../../../src/core/protocols/avtime/events';

const ev = (start_pct: number, end_pct: number, caption: string): PctEvent => ({ start_pct, end_pct, caption });

describe('avtime/events parseEventLines', () => {
  it('events, prose and bad lines, with 1-based line numbers', () => {
    const r = parseEventLines(
      [
        'Here are the events:',
        '  From 00 to 05, a man speaks.  ',
        '',
        'From 07 to 03, backwards',
        'From 1 to 2, one digit',
        'From 10 to 99, music plays\r',
        'from 01 to 02, lower case',
      ].join('\n'),
    );
    assert.deepEqual(r.events, [
      { start_pct: 0, end_pct: 5, caption: 'a man speaks.', line: 2 },
      { start_pct: 10, end_pct: 99, caption: 'music plays', line: 6 },
    ]);
    assert.deepEqual(
      r.warnings.map((w) => [w.line, w.reason, w.text]),
      [
        [1, 'not_an_event', 'Here are the events:'],
        [4, 'start_after_end', 'From 07 to 03, backwards'],
        [5, 'not_an_event', 'From 1 to 2, one digit'],
        [7, 'not_an_event', 'from 01 to 02, lower case'],
      ],
    );
  });
  it('ASCII digits only; CR and CRLF split lines; Python-style strip', () => {
    assert.equal(parseEventLines('From ٠١ to ٠٢, arabic-indic digits').events.length, 0);
    assert.equal(parseEventLines('From 01 to 02, a\rFrom 03 to 04, b\r\nFrom 05 to 06, c').events.length, 3);
    // U+FEFF is not whitespace for Python's strip(): the line does not start with "From".
    assert.equal(parseEventLines('\ufeffFrom 01 to 02, x').events.length, 0);
    assert.equal(parseEventLines('\x85From 01 to 02, x\u3000').events[0].caption, 'x');
    assert.deepEqual(parseEventLines('').warnings, []);
  });
});

describe('avtime/events merge', () => {
  it('sorts by (start, end), stably', () => {
    const s = sortEvents([ev(5, 9, 'b'), ev(1, 3, 'a'), ev(5, 6, 'c'), ev(5, 9, 'd')]);
    assert.deepEqual(
      s.map((e) => e.caption),
      ['a', 'c', 'b', 'd'],
    );
  });
  it('merges near-identical adjacent captions within a gap of [-1, 1] percent', () => {
    const long = 'a man in a red shirt plays an acoustic guitar on a stage while the audience claps along';
    const near = long.replace('claps', 'clap'); // one deletion: ratio 2·86/173 ≈ 0.994 > 0.98
    assert.ok(sequenceMatcherRatio(long, near) > 0.98);
    assert.deepEqual(mergeAdjacent([ev(0, 10, long), ev(11, 20, near)]), [ev(0, 20, long)]); // gap +1
    assert.deepEqual(mergeAdjacent([ev(0, 10, long), ev(9, 20, long)]), [ev(0, 20, long)]); // gap -1
    assert.equal(mergeAdjacent([ev(0, 10, long), ev(12, 20, long)]).length, 2); // gap +2
    assert.equal(mergeAdjacent([ev(0, 10, 'a dog barks'), ev(11, 20, 'a dog bark')]).length, 2); // ratio 0.952
    // Chains: the current event keeps absorbing while its extended end stays within reach.
    assert.deepEqual(mergeAdjacent([ev(0, 5, long), ev(6, 9, long), ev(10, 15, near), ev(30, 40, long)]), [ev(0, 15, long), ev(30, 40, long)]);
  });
  it("the end is next.end, as upstream's merge_similar_sentences: an absorbed event that ends inside current shortens it", () => {
    const c = 'the crowd cheers loudly as the band finishes the song and the lights come up';
    assert.deepEqual(mergeAdjacent([ev(5, 10, c), ev(9, 9, c)]), [ev(5, 9, c)]);
    assert.deepEqual(mergeAdjacent([ev(5, 10, c), ev(9, 9, c), ev(10, 12, c)]), [ev(5, 12, c)]);
  });
  it('ratio exactly at 0.98 does not merge (strictly greater)', () => {
    const a = 'x'.repeat(49) + 'a';
    const b = 'x'.repeat(49) + 'b';
    assert.equal(sequenceMatcherRatio(a, b), 0.98);
    assert.equal(mergeAdjacent([ev(0, 1, a), ev(2, 3, b)]).length, 2);
  });

  const CAPS = ['a man speaks to the camera about the weather today', 'a man speaks to the camera about the weather today.', 'a dog barks', 'music plays'];
  const events = fc.array(
    fc
      .tuple(fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 }), fc.constantFrom(...CAPS))
      .map(([a, b, c]) => ev(Math.min(a, b), Math.max(a, b), c)),
    { maxLength: 40 },
  );
  it('property: output starts non-decreasing, never more events, merging twice changes nothing', () => {
    fc.assert(
      fc.property(events, (xs) => {
        const once = mergeAdjacent(sortEvents(xs));
        assert.ok(once.length <= xs.length);
        for (let i = 1; i < once.length; i++) assert.ok(once[i - 1].start_pct <= once[i].start_pct);
        assert.deepEqual(mergeAdjacent(once), once);
      }),
      { numRuns: 500 },
    );
  });
  it("property: every input's start lies inside an output whose caption is its own or > 0.98 alike", () => {
    fc.assert(
      fc.property(events, (xs) => {
        const sorted = sortEvents(xs);
        const out = mergeAdjacent(sorted);
        for (const e of sorted) {
          const host = out.find(
            (o) => o.start_pct <= e.start_pct && e.start_pct <= o.end_pct && (o.caption === e.caption || sequenceMatcherRatio(o.caption, e.caption) > 0.98),
          );
          assert.ok(host, JSON.stringify(e));
        }
        // The input is left alone.
        assert.deepEqual(sorted, sortEvents(xs));
      }),
      { numRuns: 500 },
    );
  });
});

describe('avtime/events pctToMs', () => {
  it("the seed's buckets: 00..00 is the first non-empty bucket, 99..99 reaches the end", () => {
    assert.deepEqual(pctToMs(0, 0, 120_000), { start_ms: 0, end_ms: 1200 });
    assert.deepEqual(pctToMs(99, 99, 120_000), { start_ms: 118_800, end_ms: 120_000 });
    assert.deepEqual(pctToMs(10, 19, 1001), { start_ms: 100, end_ms: 201 }); // ⌊100.1⌋, ⌈200.2⌉
    // Exact integers where floats slip: (29 / 100) · 100 = 28.999999999999996 in doubles.
    assert.deepEqual(pctToMs(29, 56, 100), { start_ms: 29, end_ms: 57 });
  });
  it('rejects what is not a bucket or a duration', () => {
    assert.throws(() => pctToMs(0, 100, 1000), /percent 100/);
    assert.throws(() => pctToMs(5, 4, 1000), /after end/);
    assert.throws(() => pctToMs(0, 1, 0), /duration_ms 0/);
    assert.throws(() => pctToMs(0, 1, 1.5), /duration_ms 1.5/);
  });
  const pct = fc.integer({ min: 0, max: 99 });
  const dur = fc.oneof(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 90_071_992_547_409 }));
  it('property: equals the BigInt formula, within [0, D], non-empty, monotone in both ends', () => {
    fc.assert(
      fc.property(pct, pct, dur, (a, b, d) => {
        const [s, e] = [Math.min(a, b), Math.max(a, b)];
        const r = pctToMs(s, e, d);
        const D = BigInt(d);
        const wantStart = (BigInt(s) * D) / 100n;
        const num = BigInt(e + 1) * D;
        const wantEnd = num / 100n + (num % 100n === 0n ? 0n : 1n);
        assert.equal(r.start_ms, Number(wantStart < D ? wantStart : D));
        assert.equal(r.end_ms, Number(wantEnd < D ? wantEnd : D));
        assert.ok(0 <= r.start_ms && r.start_ms < r.end_ms && r.end_ms <= d);
        if (s > 0) assert.ok(pctToMs(s - 1, e, d).start_ms <= r.start_ms);
        if (e < 99) assert.ok(pctToMs(s, e + 1, d).end_ms >= r.end_ms);
      }),
      { numRuns: 2000 },
    );
  });
});
