// Property of the containment module (issue 33): over random trees of links under a root (relative, absolute,
// chains, loops, `..` through links, hard links to files outside), every mkdir, whole-file write, append, truncate,
// rename and delete on random paths (names, links and `..` mixed) either lands at a path whose real path is inside
// the root, or is refused; and nothing outside the root changes, byte for byte. Bounded: 100 trees of up to 8 links
// and 12 operations each, stopped at 40 s (a few seconds). Then with a concurrent swapper (issue 42, point 3): a
// thread of its own turns a folder of the paths into a link to the outside and back, as fast as it can, while
// writes, renames and deletes run under it: each lands inside or is refused, nothing outside changes.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { mkdirUnder, openAppendUnder, openTruncatedUnder, removeUnder, renameUnder } from '../../../src/core/containment/rootFs';
import { writeFileAtomic } from '../../../src/core/runner/atomicFile';
import { snapshot } from './hostile/hostileFiles';

const NAMES = ['a', 'b', 'l1', 'l2', 'h'] as const;
const name = fc.constantFrom(...NAMES);
/** A path below the root as text: names, links and `..` mixed. */
const relPath = fc.array(fc.oneof({ weight: 4, arbitrary: name }, { weight: 1, arbitrary: fc.constantFrom('..', '.') }), { minLength: 1, maxLength: 4 });

/** Where a planted link points; OUT is the outside folder's absolute path. */
const TARGETS = ['../outside', '../outside/f', 'OUT', 'OUT/f', 'a', 'l2', 'l1', 'a/../../outside', 'l1/..', 'b/../..', '.', '..', 'a/b'] as const;

type Plant = { kind: 'dir' | 'file'; at: string[] } | { kind: 'link'; at: string[]; target: string } | { kind: 'hard'; at: string[] };
const plant: fc.Arbitrary<Plant> = fc.oneof(
  fc.record({ kind: fc.constantFrom('dir' as const, 'file' as const), at: fc.array(name, { minLength: 1, maxLength: 2 }) }),
  fc.record({ kind: fc.constant('link' as const), at: fc.array(name, { minLength: 1, maxLength: 2 }), target: fc.constantFrom(...TARGETS) }),
  fc.record({ kind: fc.constant('hard' as const), at: fc.array(name, { minLength: 1, maxLength: 2 }) }),
);

type Op = { op: 'mkdir' | 'write' | 'append' | 'truncate' | 'remove' | 'removeAll'; p: string[] } | { op: 'rename'; p: string[]; to: string[] };
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constantFrom('mkdir' as const, 'write' as const, 'append' as const, 'truncate' as const, 'remove' as const, 'removeAll' as const),
    p: relPath,
  }),
  fc.record({ op: fc.constant('rename' as const), p: relPath, to: relPath }),
);

function plantAll(root: string, outside: string, plants: Plant[]): void {
  for (const pl of plants) {
    const at = path.join(root, ...pl.at); // the test's own setup: planted by a hostile user, any way it likes
    try {
      fs.mkdirSync(path.dirname(at), { recursive: true });
      if (pl.kind === 'dir') fs.mkdirSync(at);
      else if (pl.kind === 'file') fs.writeFileSync(at, 'inside\n');
      else if (pl.kind === 'hard') fs.linkSync(path.join(outside, 'f'), at);
      else if (pl.kind === 'link') fs.symlinkSync(pl.target.replace(/^OUT/, outside), at);
    } catch {
      // a plant that collides with an earlier one (or lands under a link) is skipped
    }
  }
}

/** The real path a write landed at (the nearest existing folder's real path, for a file since removed). */
function realOf(p: string): string {
  let d = p;
  for (;;) {
    try {
      return fs.realpathSync(d);
    } catch {
      d = path.dirname(d);
    }
  }
}

async function apply(root: string, o: Op): Promise<string | null> {
  const p = root + path.sep + o.p.join('/'); // kept as text: `..` not normalised away
  switch (o.op) {
    case 'mkdir':
      return mkdirUnder(root, p);
    case 'write':
      await writeFileAtomic(root, p, 'written\n');
      return p;
    case 'append': {
      const fh = await openAppendUnder(root, p);
      await fh.write('appended\n').finally(() => fh.close());
      return p;
    }
    case 'truncate':
      await (await openTruncatedUnder(root, p)).close();
      return p;
    case 'remove':
    case 'removeAll':
      await removeUnder(root, p, { recursive: o.op === 'removeAll' });
      return null;
    case 'rename': {
      const to = root + path.sep + o.to.join('/');
      await renameUnder(root, p, to);
      return to;
    }
  }
}

/** Swaps `a` for a link to `outside` and back until told to stop (each link held ~0.1 ms); says how many times. */
const SWAPPER = `
const fs = require('node:fs');
const { workerData, parentPort } = require('node:worker_threads');
const { a, outside, stop } = workerData;
let n = 0;
while (Atomics.load(stop, 0) === 0 && n < 1000000) {
  fs.renameSync(a, a + '.real');
  try {
    fs.symlinkSync(outside, a);
    Atomics.wait(stop, 0, 0, 0.1);
    n++;
  } catch {
    // the root's writer made its folder again meanwhile (it was missing): that one goes, ours comes back
  }
  for (;;) {
    fs.rmSync(a, { recursive: true, force: true });
    try {
      fs.renameSync(a + '.real', a);
      break;
    } catch {
      // made again between the two: once more
    }
  }
}
parentPort.postMessage(n);
`;

describe('containment: property over random trees of links', function () {
  this.timeout(60_000);
  it('every operation lands inside the root or is refused; nothing outside changes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(plant, { maxLength: 8 }), fc.array(op, { minLength: 1, maxLength: 12 }), async (plants, ops) => {
        const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rootfs-prop-')));
        try {
          const root = path.join(top, 'root');
          const outside = path.join(top, 'outside');
          fs.mkdirSync(root);
          fs.mkdirSync(path.join(outside, 'a'), { recursive: true });
          fs.writeFileSync(path.join(outside, 'f'), 'outside\n');
          plantAll(root, outside, plants);
          const before = snapshot(outside);
          for (const o of ops) {
            let landed: string | null = null;
            try {
              landed = await apply(root, o);
            } catch {
              continue; // refused (a link, a climb) or the OS's own error (no such folder, not empty): nothing done
            }
            if (landed !== null) {
              const real = realOf(landed);
              assert.ok(real === root || real.startsWith(root + path.sep), `${o.op} ${o.p.join('/')} landed at ${real}`);
            }
          }
          assert.deepEqual(snapshot(outside), before, 'the outside folder unchanged');
        } finally {
          fs.rmSync(top, { recursive: true, force: true });
        }
      }),
      { numRuns: 100, interruptAfterTimeLimit: 40_000 },
    );
  });

  it('with a concurrent swapper turning a folder into a link to the outside and back: nothing lands outside', async function () {
    if (process.platform !== 'linux') this.skip(); // renames and deletes through /proc/self/fd
    const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rootfs-swap-')));
    const root = path.join(top, 'root');
    const outside = path.join(top, 'outside');
    fs.mkdirSync(path.join(root, 'a', 'b'), { recursive: true });
    fs.mkdirSync(path.join(outside, 'b'), { recursive: true });
    fs.writeFileSync(path.join(outside, 'b', 'f0'), 'outside\n');
    const before = snapshot(outside);
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const swapper = new Worker(SWAPPER, { eval: true, workerData: { a: path.join(root, 'a'), outside, stop } });
    const swaps = new Promise<number>((resolve, reject) => swapper.once('message', resolve).once('error', reject));
    const b = path.join(root, 'a', 'b');
    let done = 0;
    try {
      // Bounded: 300 rounds of a write, a rename, a delete, a folder made and deleted whole, whatever the swapper does.
      for (let i = 0; i < 300; i++) {
        for (const step of [
          () => writeFileAtomic(root, path.join(b, `t${i}`), 'ours\n'),
          () => renameUnder(root, path.join(b, `t${i}`), path.join(b, `f${i}`)),
          () => removeUnder(root, path.join(b, `f${i - 1}`)),
          () => removeUnder(root, path.join(b, 'f0')),
          () => mkdirUnder(root, path.join(b, `d${i}`, 'e')),
          () => removeUnder(root, path.join(b, `d${i}`), { recursive: true }),
        ]) {
          await step().then(
            () => done++,
            () => undefined, // refused (the folder was a link when checked) or gone: nothing done
          );
        }
      }
    } finally {
      Atomics.store(stop, 0, 1);
    }
    const n = await swaps; // the swapper has put the folder back
    const after = snapshot(outside);
    fs.rmSync(top, { recursive: true, force: true });
    assert.ok(n > 100, `the swapper swapped (${n} times)`);
    assert.ok(done > 0, 'some operations went through');
    assert.deepEqual(after, before, 'nothing outside written, renamed or deleted');
  });
});
