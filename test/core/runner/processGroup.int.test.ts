// A child's own process group (runner/processGroup.ts): its leader's start ticks name it while it runs and only then;
// endGroup ends the leader and what it started; our exit takes the groups still registered with killGroupAtExit.
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { waitFor } from '../../helpers/waitFor';
import { endGroup, groupRuns, processStartTicks } from '../../../src/core/runner/processGroup';

const MODULE = path.resolve(__dirname, '../../../src/core/runner/processGroup.ts');
/** A group leader that starts a child of its own and prints the child's pid. */
const LEADER = `const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
console.log(c.pid); setInterval(() => {}, 1000);`;

describe('process groups (Linux /proc)', function () {
  this.timeout(30_000);
  const started: number[] = [];
  afterEach(() => {
    for (const g of started.splice(0)) {
      try {
        process.kill(-g, 'SIGKILL');
      } catch {
        // gone
      }
    }
  });

  async function startGroup(): Promise<{ pgid: number; child: number }> {
    const leader = spawn(process.execPath, ['-e', LEADER], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
    started.push(leader.pid!);
    let out = '';
    leader.stdout!.on('data', (d) => (out += String(d)));
    const child = await waitFor(() => Number(out.trim()) || null, 10_000, "the leader's child pid");
    return { pgid: leader.pid!, child };
  }

  it('start ticks: the same while the process runs, null once it is gone', async () => {
    const own = await processStartTicks(process.pid);
    assert.match(String(own), /^\d+$/);
    assert.equal(await processStartTicks(process.pid), own);
    const done = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    assert.equal(await processStartTicks(Number(done.stdout.trim())), null);
  });

  it('endGroup ends the leader and the child it started', async () => {
    const { pgid, child } = await startGroup();
    assert.ok(await groupRuns(pgid));
    assert.equal(await endGroup(pgid, 2000), true);
    assert.equal(await groupRuns(pgid), false);
    assert.equal(await processStartTicks(child), null);
  });

  it("a process's exit takes the groups it registered with killGroupAtExit", async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fpsweep-pgexit-'));
    try {
      const script = path.join(tmp, 'exit.ts');
      fs.writeFileSync(
        script,
        `import { spawn } from 'node:child_process';
import { killGroupAtExit } from ${JSON.stringify(MODULE)};
const leader = spawn(process.execPath, ['-e', ${JSON.stringify(LEADER)}], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
leader.stdout!.once('data', (d) => {
  console.log(leader.pid + ' ' + String(d).trim());
  killGroupAtExit(leader.pid!);
  process.exit(0);
});
`,
      );
      const r = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 20_000 });
      assert.equal(r.status, 0, r.stderr);
      const [pgid, child] = r.stdout.trim().split(' ').map(Number);
      started.push(pgid);
      await waitFor(async () => !(await groupRuns(pgid)), 5000, 'the registered group ended with the process');
      assert.equal(await processStartTicks(child), null);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
