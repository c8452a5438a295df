import { strict as assert } from 'node:assert';
import { FrameAssembler } from '../../../../../src/core/protocols/fp/frames/frameAssembler';
import { ByteBudget } from '../../../../../src/core/protocols/fp/frames/limits';

const tick = () => new Promise((r) => setImmediate(r));

/** Frames of `size` bytes whose every byte is the frame's number. */
function stream(frames: number, size: number): Buffer {
  const b = Buffer.alloc(frames * size);
  for (let f = 0; f < frames; f++) b.fill(f, f * size, (f + 1) * size);
  return b;
}

function harness(frames: number, size: number, budgetFrames = 100) {
  const budget = new ByteBudget(budgetFrames * size);
  const got: number[][] = [];
  const held: Buffer[] = [];
  const asm = new FrameAssembler({
    frameBytes: size,
    frames,
    nextBuffer: () => (budget.tryAcquire(size) ? Buffer.alloc(size) : budget.acquire(size).then(() => Buffer.alloc(size))),
    onFrame: (buf) => {
      got.push([...new Set(buf)]);
      held.push(buf);
    },
    giveBack: () => budget.release(size),
  });
  const releaseOne = () => {
    held.shift();
    budget.release(size);
  };
  return { asm, got, budget, releaseOne };
}

describe('frame assembler', () => {
  it('cuts pushed chunks of any size into whole frames, in order', () => {
    for (const chunk of [1, 5, 7, 12, 100]) {
      const { asm, got } = harness(4, 6);
      const data = stream(4, 6);
      for (let off = 0; off < data.length; off += chunk) assert.ok(asm.push(data.subarray(off, off + chunk)));
      assert.deepEqual(got, [[0], [1], [2], [3]], `chunks of ${chunk}`);
      assert.deepEqual(asm.finish(), { partialBytes: 0 });
      assert.equal(asm.extraBytes, 0);
    }
  });

  it('takes bytes read in place (directTarget + advance) and pushed ones alike', () => {
    const { asm, got } = harness(3, 4);
    const data = stream(3, 4);
    let off = 0;
    const direct = (n: number) => {
      data.copy(asm.directTarget()!, 0, off, off + n);
      asm.advance(n);
      off += n;
    };
    direct(3);
    assert.ok(asm.push(data.subarray(off, off + 2)));
    off += 2; // straddles frames 0 and 1
    direct(3);
    direct(4);
    assert.deepEqual(got, [[0], [1], [2]]);
    assert.throws(() => asm.advance(1), RangeError, 'no frame is being filled after the last one');
  });

  it('pauses when the byte budget is spent and resumes, in order, once a frame is released', async () => {
    const { asm, got, releaseOne } = harness(4, 5, 2);
    const data = stream(4, 5);
    assert.equal(asm.push(data.subarray(0, 12)), false, 'the third frame has no buffer yet');
    assert.deepEqual(got, [[0], [1]]);
    assert.equal(asm.directTarget(), null, 'nothing is read in place while paused');
    releaseOne();
    await asm.ready;
    await tick();
    assert.equal(asm.paused, false);
    assert.equal(asm.push(data.subarray(12, 15)), false, 'frame 2 is whole; frames 1 and 2 hold the budget');
    assert.deepEqual(got, [[0], [1], [2]]);
    releaseOne();
    await asm.ready;
    await tick();
    assert.ok(asm.push(data.subarray(15)));
    assert.deepEqual(got, [[0], [1], [2], [3]]);
  });

  it('counts bytes after the last wanted frame and an unfinished frame, never delivering them', () => {
    const extra = harness(2, 4);
    extra.asm.push(stream(3, 4));
    assert.deepEqual(extra.got, [[0], [1]]);
    assert.equal(extra.asm.extraBytes, 4);
    const partial = harness(2, 4);
    partial.asm.push(stream(2, 4).subarray(0, 6));
    assert.deepEqual(partial.got, [[0]]);
    assert.deepEqual(partial.asm.finish(), { partialBytes: 2 });
    assert.equal(partial.budget.inUse, 4, "the unfinished frame's buffer went back; the delivered one is still held");
  });
});
