// Frames × Pixels's video order (moved with it from the engine's scheduler test): longest first within windows,
// the run starting on the videos quickest to prepare.
import { strict as assert } from 'node:assert';
import type { SchedJob } from '../../../../../src/core/runner/scheduler';
import { longestFirstWithinWindows, prepEstimate } from '../../../../../src/core/protocols/fp/sweep/videoOrder';

describe('fp sweep: video order', () => {
  it('orders videos longest first within windows; the run may start with the quickest to prepare', () => {
    // cost per task = frames × tokens: a video's preparation scales with one task per group.
    const video = (key: string, frames: number[], items: number): SchedJob => ({
      key,
      tasks: frames.flatMap((f, g) => Array.from({ length: items }, (_, i) => ({ key: `${key}/${g}/${i}`, group: `${key}/${g}`, cost: f }))),
    });
    const vs = [video('a', [10], 1), video('b', [100, 50], 1), video('c', [20], 5), video('d', [300], 1), video('e', [5], 2), video('f', [60], 3)];
    assert.equal(prepEstimate(vs[1]), 150);
    assert.equal(prepEstimate(vs[2]), 20); // five questions on the same frames: one preparation
    const keys = (xs: SchedJob[]) => xs.map((v) => v.key).join('');
    // total cost: a 10, b 150, c 100, d 300, e 10, f 180
    assert.equal(keys(longestFirstWithinWindows(vs, 3)), 'bca' + 'dfe');
    // head 2: the two quickest to prepare of the first window (e 5, a 10) first, then longest first.
    assert.equal(keys(longestFirstWithinWindows(vs, 6, 2)), 'ea' + 'dfbc');
    // only the first window gets a head; the later ones end the run on small videos as before
    assert.equal(keys(longestFirstWithinWindows(vs, 3, 1)), 'abc' + 'dfe');
  });
});
