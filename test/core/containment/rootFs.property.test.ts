// Property of the containment module (issue 33): over random trees of links under a root (relative, absolute,
// chains, loops, `..` through links, hard links to files outside), every mkdir, whole-file write, append, truncate,
// rename and delete on random paths (names, links and `..` mixed) either lands at a path whose real path is inside
// the root, or is refused; and nothing outside the root changes, byte for byte. Bounded: 100 trees of up to 8 links
// and 12 operations each, stopped at 40 s (a few seconds).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
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
});
