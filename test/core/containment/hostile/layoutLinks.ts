// Issue 42, point 5, shared by the generated link tests of every run type (fp, caption, cut, avtime LayoutLinks) and
// fpStateLinks: a layout module's members listed from its class (a member added to the layout and not classified
// fails the suite), a link planted at a path (a file link to a file outside, or a folder link to a folder outside),
// and the one expected end of a containment refusal: exit 2, the link named, no stack trace, nothing outside changed.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { escaped, hostileDir, snapshot } from './hostileFiles';

export const NO_STACK = /\n\s+at \S/;

export interface Outcome {
  code: number;
  out: string;
  err: string;
}

/** A link to a file outside, to a folder outside, or to a file outside that does not exist yet (a write by path makes it). */
export type LinkKind = 'file' | 'dir' | 'dangling';

/** A path a verb writes: planted as a link of `kind`, then `verb` runs (`prepare` sets the root up for it first). */
export interface Written<L, V extends string> {
  at: (l: L) => string;
  kind: LinkKind;
  verb: V;
  prepare?: (l: L) => void | Promise<void>;
  /** Written whole (a temp renamed over it): the link is replaced by our file, never written through. */
  replaced?: true;
  /** A folder whose whole content is ours (published clips, frames): a clean run's files under it are its. */
  tree?: true;
  /** A member with a parameter (a shard, a direction): every path it names in a clean run, when `at` plants one. */
  each?: (l: L) => string[];
  /** Refused before anything is written with this message, not the link's path: the link itself makes the verb's
   * precondition false (a root holding anything is no new run's; an input present is read, not written). */
  refusedAs?: RegExp;
}
/** A member no verb of this run type writes, with why (an input, the root the user names, not a path). */
export interface ReadOnly {
  readOnly: string;
}
export type LayoutTable<L, V extends string> = Record<string, Written<L, V> | ReadOnly>;

const isWritten = <L, V extends string>(e: Written<L, V> | ReadOnly): e is Written<L, V> => !('readOnly' in e);

/**
 * Every member of a layout: the getters and methods of its class and of the classes it extends, its own fields, and
 * for a field holding an object of paths (a RunRoot), each of that object's fields as `field.name`.
 */
export function layoutMembers(instance: object): string[] {
  const names = new Set<string>();
  for (let p = Object.getPrototypeOf(instance); p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const n of Object.getOwnPropertyNames(p)) if (n !== 'constructor') names.add(n);
  }
  for (const [k, v] of Object.entries(instance)) {
    if (v && typeof v === 'object') for (const sub of Object.keys(v)) names.add(`${k}.${sub}`);
    else names.add(k);
  }
  return [...names].sort();
}

/** `link` made a link to a fresh folder outside (kind 'dir'), to the file `victim` in it, or to the missing `absent` in
 * it (kind 'dangling'); the outside's snapshot. */
export function plantLink(link: string, kind: LinkKind): { outside: string; before: Record<string, string> } {
  const outside = hostileDir('fpsweep-hostile-outside-');
  fs.writeFileSync(path.join(outside, 'victim'), 'the outside file\n');
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.rmSync(link, { recursive: true, force: true });
  fs.symlinkSync(kind === 'dir' ? outside : path.join(outside, kind === 'file' ? 'victim' : 'absent'), link);
  return { outside, before: snapshot(outside) };
}

/** The end every containment refusal has: exit 2, the link named, no stack trace, the outside unchanged. */
export function assertRefused(r: Outcome, link: string, planted: { outside: string; before: Record<string, string> }): void {
  assert.equal(r.code, 2, r.out + r.err);
  assert.match(r.out + r.err, new RegExp(`${escaped(link)}: is a symbolic link`));
  assert.doesNotMatch(r.out + r.err, NO_STACK);
  assert.deepEqual(snapshot(planted.outside), planted.before, 'nothing outside changed');
}

/** Every path under `dir` (folders too), absolute, read without following links. */
function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() && !e.isSymbolicLink() ? [p, ...walk(p)] : [p];
  });
}

export interface LayoutSuite<L, V extends string> {
  title: string;
  /** The layout of a root (also called on '/x' to list its members). */
  layoutOf: (root: string) => L;
  table: LayoutTable<L, V>;
  /** Paths a verb writes that are no member, planted the same: the engine's, derived from the layout's RunRoot
   * (runner/runRoot.ts's stop file), or under a `tree` member the verb fills (a merged shard's copied logs). */
  beyond?: LayoutTable<L, V>;
  timeoutMs: number;
  setUp?: (this: Mocha.Context) => Promise<void>;
  tearDown?: () => Promise<void>;
  /** A fresh root, ready for any verb of the table. */
  freshRoot: () => Promise<string>;
  run: (verb: V, root: string, layout: L) => Promise<Outcome>;
  /** Clean runs, each on a fresh root, its verbs in order: every path they leave under the root must be a written
   * member's (or under a `tree` member), so a file written by a path spelled outside the layout fails the suite too. */
  cleanRuns: V[][];
}

/** The generated suite: the table lists every member, each written one planted and its verb refused, a clean run covered. */
export function describeLayoutLinks<L extends object, V extends string>(s: LayoutSuite<L, V>): void {
  describe(s.title, function () {
    this.timeout(s.timeoutMs);
    if (s.setUp) before(s.setUp);
    if (s.tearDown) after(s.tearDown);

    it('lists every member of the layout, each written (planted below) or read only with why', () => {
      assert.deepEqual(layoutMembers(s.layoutOf('/x')), Object.keys(s.table).sort());
    });

    for (const verbs of s.cleanRuns) {
      it(`a clean run (${verbs.join(', ')}) writes only the layout's paths`, async () => {
        const root = await s.freshRoot();
        const layout = s.layoutOf(root);
        const had = new Set(walk(root));
        for (const verb of verbs) {
          const r = await s.run(verb, root, layout);
          assert.equal(r.code, 0, `${verb}: ${r.out}${r.err}`);
        }
        const written = Object.values({ ...s.table, ...s.beyond })
          .filter(isWritten)
          .flatMap((e) => (e.each?.(layout) ?? [e.at(layout)]).map((at) => ({ at, tree: e.tree })));
        const named = (p: string) => written.some((w) => w.at === p || w.at.startsWith(p + path.sep) || (w.tree && p.startsWith(w.at + path.sep)));
        assert.deepEqual(
          walk(root).filter((p) => !had.has(p) && !named(p)),
          [],
          'paths written that no member of the layout names',
        );
      });
    }

    for (const [name, entry] of [...Object.entries(s.table), ...Object.entries(s.beyond ?? {})]) {
      if (!isWritten(entry)) continue;
      const end = entry.refusedAs
        ? `refused (exit 2, ${entry.refusedAs.source}), no stack trace`
        : entry.replaced
          ? 'the link replaced by our file (never written through)'
          : 'exit 2 naming it, no stack trace';
      it(`${name} as a ${entry.kind} link outside, then \`${entry.verb}\`: ${end}, nothing outside changed`, async () => {
        const root = await s.freshRoot();
        const layout = s.layoutOf(root);
        await entry.prepare?.(layout);
        const link = entry.at(layout);
        const planted = plantLink(link, entry.kind);
        const r = await s.run(entry.verb, root, layout);
        if (entry.refusedAs) {
          assert.equal(r.code, 2, r.out + r.err);
          assert.match(r.out + r.err, entry.refusedAs);
          assert.doesNotMatch(r.out + r.err, NO_STACK);
          return assert.deepEqual(snapshot(planted.outside), planted.before, 'nothing outside changed');
        }
        if (!entry.replaced) return assertRefused(r, link, planted);
        assert.equal(r.code, 0, r.out + r.err);
        assert.ok(!fs.lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink(), 'the link replaced by our own file (or removed)');
        assert.deepEqual(snapshot(planted.outside), planted.before, 'nothing outside changed');
      });
    }
  });
}
