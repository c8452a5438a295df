import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { errorLine, lastLine, startCli } from '../../src/extension/cli';

describe('extension CLI runner', () => {
  let dist: string;
  before(() => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'fpsweep-ext-cli-'));
  });
  after(() => fs.rmSync(dist, { recursive: true, force: true }));

  it('an install without dist/cli.js fails the verb and says the bundle is missing, plainly', async () => {
    const r = await startCli({ distDir: dist, verb: 'doctor', args: [] }).done;
    assert.equal(r.code, 1);
    assert.match(errorLine(r.stderr), /^fpsweep doctor: the CLI bundle .*cli\.js is missing/);
  });

  it('streams output, passes the knob environment, and reports the exit code', async () => {
    fs.writeFileSync(
      path.join(dist, 'cli.js'),
      "process.stdout.write(`verb=${process.argv[2]} args=${process.argv.slice(3).join(' ')}\\n`);" +
        "process.stdout.write(`NGPU=${process.env.NGPU}\\n`); process.stderr.write('fpsweep run: bad thing\\nmore\\n'); process.exit(3);",
    );
    const chunks: string[] = [];
    const r = await startCli({ distDir: dist, verb: 'run', args: ['--pilot', '--package', '/p'], env: { NGPU: '2' }, onOutput: (t) => chunks.push(t) }).done;
    assert.equal(r.code, 3);
    assert.match(r.stdout, /verb=run args=--pilot --package \/p/);
    assert.match(r.stdout, /NGPU=2/);
    assert.ok(chunks.join('').includes('NGPU=2'));
    assert.equal(errorLine(r.stderr), 'fpsweep run: bad thing');
    assert.equal(lastLine('a\nlast line\n\n'), 'last line');
  });

  it('interrupt sends SIGINT first, so the verb can drain', async () => {
    fs.writeFileSync(
      path.join(dist, 'cli.js'),
      "process.on('SIGINT', () => { process.stdout.write('drained\\n'); process.exit(0); }); process.stdout.write('ready\\n'); setInterval(() => {}, 1000);",
    );
    const run = startCli({ distDir: dist, verb: 'run', args: [] });
    await new Promise<void>((resolve) => run.child.stdout!.once('data', () => resolve()));
    run.interrupt(5000);
    const r = await run.done;
    assert.equal(r.code, 0);
    assert.match(r.stdout, /drained/);
  });
});
