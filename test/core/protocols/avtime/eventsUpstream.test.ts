// Our adjacent merge against upstream LongVALE's own `merge_similar_sentences` (SPEC-AVTIME §4), transcribed
// into test/fixtures/avtime/longvale_merge.py and run under /usr/bin/python3 (its difflib is the ratio's
// reference too). Seeded random event lists, sorted as the normalizer sorts them and also unsorted (upstream
// takes any order), with near-duplicate captions and a planted case where next ends inside current.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { SeededRandom } from '../../../../src/core/seededRandom';
import { mergeAdjacent, sortEvents, type PctEvent } from '../../../../src/core/protocols/avtime/events';

const UPSTREAM = path.join(__dirname, '..', '..', '..', 'fixtures', 'avtime', 'longvale_merge.py');
const LONG = 'a man in a red shirt plays an acoustic guitar on a stage while the audience claps along';
// Same caption, one edit (ratio > 0.98: merges), two edits (< 0.98: stays apart), and unrelated ones.
const CAPTIONS = [LONG, LONG.replace('claps', 'clap'), LONG.replace('claps', 'clip').replace('red', 'rod'), 'a dog barks', 'a dog barks!', 'music plays'];

type Triple = [number, number, string];

function randomList(rng: SeededRandom): Triple[] {
  const out: Triple[] = [];
  const n = 1 + rng.int(12);
  let cursor = rng.int(20);
  for (let i = 0; i < n; i++) {
    const caption = rng.next() < 0.6 ? CAPTIONS[rng.int(3)] : rng.pick(CAPTIONS);
    const prev = out[out.length - 1];
    if (prev && rng.next() < 0.3) {
      // next ends inside current: a one-bucket event on current's last bucket but one (gap −1).
      const at = Math.max(prev[0], prev[1] - 1);
      out.push([at, at, caption]);
      continue;
    }
    const start = Math.min(99, Math.max(0, cursor + rng.int(4) - 1));
    const end = Math.min(99, start + rng.int(15));
    out.push([start, end, caption]);
    cursor = end;
  }
  return out;
}

const toEvents = (xs: readonly Triple[]): PctEvent[] => xs.map(([start_pct, end_pct, caption]) => ({ start_pct, end_pct, caption }));
const toTriples = (xs: readonly PctEvent[]): Triple[] => xs.map((e) => [e.start_pct, e.end_pct, e.caption]);

describe("avtime/events mergeAdjacent against upstream LongVALE's merge_similar_sentences (/usr/bin/python3)", () => {
  it('agrees exactly on 600 seeded random lists (sorted and unsorted), including next ending inside current', () => {
    const rng = new SeededRandom(20260318);
    const lists: Triple[][] = [];
    for (let i = 0; i < 300; i++) {
      const raw = randomList(rng);
      lists.push(rng.shuffle(raw), toTriples(sortEvents(toEvents(raw))));
    }
    const upstream = JSON.parse(execFileSync('/usr/bin/python3', [UPSTREAM], { input: JSON.stringify(lists), maxBuffer: 64 << 20 }).toString()) as Triple[][];
    assert.equal(upstream.length, lists.length);
    let insideCases = 0;
    lists.forEach((xs, i) => {
      const ours = toTriples(mergeAdjacent(toEvents(xs)));
      assert.deepEqual(ours, upstream[i], `list ${i}: ${JSON.stringify(xs)}`);
      // Count the lists where a max(cur.end, next.end) merge would differ: the case this test is for.
      const maxMerge: Triple[] = [];
      for (const [s, e, c] of xs) {
        const cur = maxMerge[maxMerge.length - 1];
        const same = cur && toTriples(mergeAdjacent(toEvents([cur, [s, e, c]]))).length === 1;
        if (same) cur[1] = Math.max(cur[1], e);
        else maxMerge.push([s, e, c]);
      }
      if (JSON.stringify(maxMerge) !== JSON.stringify(upstream[i])) insideCases++;
    });
    assert.ok(insideCases >= 100, `only ${insideCases} lists where next ends inside current at a merge`);
  });
});
