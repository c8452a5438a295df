// The findings panel's `findings --follow` child (findingsChild.ts), on a stand-in dist/cli.js: one JSON line
// per ask, "unchanged" passed through, a line it cannot read and an ended child said plainly, and a new child
// started on the next ask.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FindingsChild } from '../../../../src/extension/protocols/fp/findingsChild';
import { FINDINGS_FIXTURE } from '../../../core/protocols/fp/findings/fixture';

describe('the findings --follow child', () => {
  let dist: string;
  beforeEach(() => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'fpsweep-findings-child-'));
  });
  afterEach(() => fs.rmSync(dist, { recursive: true, force: true }));

  /** A cli.js that answers the n-th line of stdin with `answers[n]` (and records its arguments). */
  function fakeCli(answers: string[]): void {
    fs.writeFileSync(
      path.join(dist, 'cli.js'),
      `const fs = require('fs'); fs.writeFileSync(${JSON.stringify(path.join(dist, 'args.json'))}, JSON.stringify(process.argv.slice(2)));
       const answers = ${JSON.stringify(answers)}; let n = 0;
       require('readline').createInterface({ input: process.stdin }).on('line', () => {
         const a = answers[n++];
         if (a === undefined) { process.stderr.write('fpsweep findings: no more answers\\n'); process.exit(3); }
         process.stdout.write(a + '\\n');
       });`,
    );
  }

  it('asks with one line and takes one JSON line back, findings or unchanged', async () => {
    const findings = JSON.parse(fs.readFileSync(FINDINGS_FIXTURE, 'utf8'));
    const full = JSON.stringify({ stamp: 's1', findings, framesSent: { MVBench: { v_8_s224: 8 } } });
    fakeCli([full, JSON.stringify({ stamp: 's1', unchanged: true })]);
    const child = new FindingsChild({ distDir: dist, packageDir: dist, env: {} });
    try {
      const a = await child.ask();
      assert.ok(!('unchanged' in a));
      assert.equal(a.findings.benchmarks.length, findings.benchmarks.length);
      assert.deepEqual(a.framesSent, { MVBench: { v_8_s224: 8 } });
      assert.deepEqual(await child.ask(), { stamp: 's1', unchanged: true });
      assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dist, 'args.json'), 'utf8')), ['findings', '--json', '--flips', '--follow', '--package', dist]);
      // The third ask finds the child out of answers: it ends, and the ask says why.
      await assert.rejects(child.ask(), /fpsweep findings ended \(exit 3\): fpsweep findings: no more answers/);
      // The next ask starts a new child.
      assert.ok(!('unchanged' in (await child.ask())));
    } finally {
      child.dispose();
    }
  });

  it('refuses a line that is not a follow answer', async () => {
    fakeCli([JSON.stringify({ stamp: 's1', findings: { benchmarks: 'nope' }, framesSent: {} })]);
    const child = new FindingsChild({ distDir: dist, packageDir: dist, env: {} });
    try {
      await assert.rejects(child.ask(), /printed findings this extension does not understand/);
    } finally {
      child.dispose();
    }
  });
});
