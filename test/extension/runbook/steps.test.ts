// The runbooks' one CLI-step runner (runbook/steps.ts): `fpsweep <verb> …` with its output in the cell, its exit
// written when it failed, and an interrupt of the cell passed on (to the CLI, or to what the step asks instead) and
// not reported as a failure. The CLI here is a stand-in dist/cli.js that echoes its words and, when told, waits
// for SIGINT after saying it is ready: the test interrupts on that line, never after a delay.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fpSteps } from '../../../src/extension/protocols/fp/fpSteps';
import { runCliInCell, runCliStep, type StepIo } from '../../../src/extension/runbook/steps';
import { runFlags, settingsSchema } from '../../../src/extension/settingsModel';

const CLI = `process.stdout.write('args: ' + process.argv.slice(2).join(' ') + '\\n');
if (process.env.WAIT) {
  process.on('SIGINT', () => { process.stdout.write('interrupted\\n'); process.exit(130); });
  process.stdout.write('ready\\n');
  setInterval(() => {}, 1000);
} else process.exit(Number(process.env.CODE || 0));
`;

describe('runbook CLI steps (runCliStep, runCliInCell)', () => {
  let dist: string;
  before(() => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'fpsweep-steps-'));
    fs.writeFileSync(path.join(dist, 'cli.js'), CLI);
  });
  after(() => fs.rmSync(dist, { recursive: true, force: true }));

  /** A cell: what was written, and an interrupt fired when the CLI says it is ready. */
  const cell = (env: Record<string, string>) => {
    let onCancel: (() => void) | undefined;
    const io: StepIo & { text: string; stderr: string } = {
      text: '',
      stderr: '',
      distDir: dist,
      env: async () => env,
      token: {
        isCancellationRequested: false,
        onCancellationRequested: (fn) => {
          onCancel = fn;
          return { dispose: () => (onCancel = undefined) };
        },
      },
      write(t, stream) {
        io.text += t;
        if (stream === 'stderr') io.stderr += t;
        if (t.includes('ready\n') && onCancel) {
          io.token.isCancellationRequested = true;
          onCancel();
        }
      },
    };
    return io;
  };

  it('streams the output of `fpsweep <verb> …` and is true when it exited 0', async () => {
    const io = cell({});
    assert.equal(await runCliStep(io, 'avtime', ['split', '--seed', '7'], {}, dist), true);
    assert.equal(io.text, 'args: avtime split --seed 7\n');
  });

  it('writes the exit of a failed step and is false', async () => {
    const io = cell({});
    assert.equal(await runCliStep(io, 'avtime', ['build-grpo'], { CODE: '3' }, dist), false);
    assert.equal(io.stderr, '\n(exit 3)\n');
  });

  it('passes an interrupt of the cell on to the CLI, and does not report it as a failure', async () => {
    const io = cell({});
    assert.equal(await runCliStep(io, 'status', ['--wait'], { WAIT: '1' }, dist), false);
    assert.match(io.text, /ready\ninterrupted\n$/);
    assert.equal(io.stderr, '');
  });

  it('lets a step answer the interrupt its own way (FP asks its worker to stop, then interrupts the follower)', async () => {
    const io = cell({});
    const asked: string[] = [];
    const r = await runCliInCell(io, 'status', ['--wait'], { WAIT: '1' }, dist, (run) => {
      asked.push('stop the worker');
      run.interrupt();
    });
    assert.deepEqual(asked, ['stop the worker']);
    assert.equal(r.code, 130);
  });

  it("FP's run step gets the settings' --base-port (fpsweep.basePort); other steps and a step naming its port do not", async () => {
    const steps = (basePort: number | null) =>
      fpSteps(
        () => {},
        (given) => runFlags(settingsSchema.parse({ basePort }), given),
      );
    const ran = async (basePort: number | null, verb: string, args: string[]) => {
      const io = cell({});
      assert.equal(await steps(basePort).run(verb, args, io, dist), true);
      return io.text.split('\n').filter((l) => l.startsWith('args: '));
    };
    assert.deepEqual(await ran(18_011, 'run', ['--pilot']), [`args: run --pilot --base-port 18011 --package ${dist}`]);
    assert.deepEqual(await ran(null, 'run', ['--pilot']), [`args: run --pilot --package ${dist}`]);
    assert.deepEqual(await ran(18_011, 'dry-run', ['--pilot']), [`args: dry-run --pilot --package ${dist}`]);
    assert.deepEqual(await ran(18_011, 'run', ['--base-port', '9000']), [`args: run --base-port 9000 --package ${dist}`]);
  });
});
