// docs/CLI.md's reference is the verbs' own --help (scripts/genCliDoc.ts): it fails when the page and the help texts
// differ (run `npm run docs:cli`), and when a registered verb has no section there.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { verbs } from '../../src/cli/main';
import { subs } from '../../src/core/protocols/avtime/cli/avtime';
import { BEGIN, CLI_DOC, cliDocEntries, cliReference, END, withReference } from '../../scripts/genCliDoc';

describe('docs/CLI.md is generated from the verbs’ --help', function () {
  this.timeout(60_000);
  const doc = fs.readFileSync(CLI_DOC, 'utf8');

  it('is what `npm run docs:cli` writes (edit the help text, then run it)', async () => {
    const want = withReference(doc, await cliReference());
    if (want !== doc) {
      const a = doc.split('\n');
      const b = want.split('\n');
      const i = a.findIndex((l, k) => l !== b[k]);
      assert.fail(
        `docs/CLI.md differs from the verbs' --help from line ${i + 1}: has ${JSON.stringify(a[i])}, help says ${JSON.stringify(b[i])}; run npm run docs:cli`,
      );
    }
  });

  it('has a section for every verb main.ts registers and every avtime verb', () => {
    const sections = new Set([...doc.matchAll(/^### `fpsweep ([^`]+)`$/gm)].map((m) => m[1]));
    for (const v of Object.keys(verbs)) assert.ok(sections.has(v), `no section for fpsweep ${v}`);
    for (const s of Object.keys(subs))
      assert.ok(
        [...sections].some((x) => x === `avtime ${s}` || x.startsWith(`avtime ${s} `)) || ['inputs', 'infer', 'judge', 'score', 'run'].includes(s),
        `no section for avtime ${s}`,
      );
    for (const v of ['inspect', 'avtime caption', 'avtime cut', 'avtime split', 'avtime build-sft', 'avtime build-grpo', 'avtime dvc'])
      assert.ok(sections.has(v), v);
    assert.equal(cliDocEntries().length, sections.size);
  });

  it('a changed help text fails the comparison', async () => {
    const ref = await cliReference();
    const stale = withReference(doc, ref.replace('usage: fpsweep inspect', 'usage: fpsweep inspekt'));
    assert.notEqual(withReference(stale, ref), stale);
    assert.throws(() => withReference('no markers', ref), /no .* part/);
    assert.ok(ref.startsWith(BEGIN) && ref.endsWith(END));
  });
});
