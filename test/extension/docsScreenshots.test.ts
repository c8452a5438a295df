// The committed screenshots (issue 44: every committed screenshot comes from `npm run screenshots`): each PNG in
// docs/screenshots/ is one that a script run by scripts/screenshots.sh writes (themes.ts's themeShots, `NAME` in the
// light, dark and high-contrast themes, unless it passes `docs: false`), each such shot is committed, and each image
// the docs show is there. Read from the sources, not run: a PNG put in by hand, or left after its shot was renamed or
// dropped, fails here.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '..', '..');
const SHOTS = path.join(REPO, 'docs', 'screenshots');
const THEMES = ['light', 'dark', 'hc'];

/** The e2e scripts `npm run screenshots` runs (its ALL list). */
export function screenshotScripts(sh: string): string[] {
  const m = /^ALL=\(([^)]*)\)/m.exec(sh);
  if (!m) throw new Error('scripts/screenshots.sh has no ALL=(…) list');
  return m[1].trim().split(/\s+/);
}

/** The docs shots a script's source takes: each themeShots(…, 'NAME', {…}) call without `docs: false`. */
export function docsShotNames(source: string): string[] {
  const names: string[] = [];
  const call = /themeShots\(\s*[^,]+,\s*[^,]+,\s*'([^']+)'/g;
  for (let m = call.exec(source); m; m = call.exec(source)) {
    // The call's arguments: up to the parenthesis that closes it.
    let depth = 0;
    let end = m.index + m[0].indexOf('(');
    for (; end < source.length; end++) {
      if (source[end] === '(') depth++;
      else if (source[end] === ')' && --depth === 0) break;
    }
    if (!/docs:\s*false/.test(source.slice(m.index, end))) names.push(m[1]);
  }
  return names;
}

/** Every PNG `npm run screenshots` writes into docs/screenshots/. */
function expectedShots(): Set<string> {
  const sh = fs.readFileSync(path.join(REPO, 'scripts', 'screenshots.sh'), 'utf8');
  const out = new Set<string>();
  for (const script of screenshotScripts(sh)) {
    const names = docsShotNames(fs.readFileSync(path.join(REPO, 'test', 'e2e', `${script}.ts`), 'utf8'));
    assert.ok(names.length > 0, `test/e2e/${script}.ts takes no docs shot, yet screenshots.sh runs it`);
    for (const n of names) for (const t of THEMES) out.add(`${n}-${t}.png`);
  }
  return out;
}

describe('docs/screenshots: every PNG is one `npm run screenshots` makes', () => {
  it('reads the shots a script takes, leaving out docs: false', () => {
    const src = [
      "await themeShots(wb!, frame, 'timing-report', { log, docs: false });",
      "await themeShots(wb!, frame, 'findings', {\n  log,\n  ready: async () => {\n    await x();\n  },\n});",
      "await themeShots(wb!, null, 'walkthrough', { log });",
    ].join('\n');
    assert.deepEqual(docsShotNames(src), ['findings', 'walkthrough']);
    assert.deepEqual(screenshotScripts('set -e\nALL=(run captionViewer)\n'), ['run', 'captionViewer']);
  });

  it('no PNG that no script writes (a stale orphan), and none missing', () => {
    const want = expectedShots();
    const have = new Set(fs.readdirSync(SHOTS).filter((f) => f.endsWith('.png')));
    const orphans = [...have].filter((f) => !want.has(f));
    const missing = [...want].filter((f) => !have.has(f));
    assert.deepEqual(orphans, [], `in docs/screenshots/ but written by no script npm run screenshots runs: ${orphans.join(', ')}`);
    assert.deepEqual(missing, [], `written by npm run screenshots but not committed: ${missing.join(', ')}`);
  });

  it('every screenshot README.md and docs/*.md show is committed', () => {
    const docs = [
      'README.md',
      ...fs
        .readdirSync(path.join(REPO, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => path.join('docs', f)),
    ];
    let shown = 0;
    for (const doc of docs) {
      const text = fs.readFileSync(path.join(REPO, doc), 'utf8');
      for (const m of text.matchAll(/!\[[^\]]*\]\(([^)\s]*screenshots\/[^)\s]+\.png)\)/g)) {
        shown++;
        const file = path.resolve(path.dirname(path.join(REPO, doc)), m[1]);
        assert.ok(fs.existsSync(file), `${doc} shows ${m[1]}, which is not there`);
      }
    }
    assert.ok(shown >= 4, `the docs show ${shown} screenshot(s)`);
  });
});
