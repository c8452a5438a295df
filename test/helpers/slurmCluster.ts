// A throwaway one-node Slurm on this host for the integration test of the shipped job scripts (issue 43): munged,
// slurmctld and slurmd as root, each with its own socket, ports, state and logs in a temp folder (nothing of the
// system's /etc/slurm or /run/munge is used). The config that worked on Debian's slurm-wlm 22.05 is shipped,
// examples/slurm/one-node-test.conf: proctrack/linuxproc, task/none, no cgroups, no accounting daemon (scontrol keeps
// ended tasks for MinJobAge).
import { execFileSync, execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from './waitFor';

const run = promisify(execFile);

/** Why this host cannot run the test (null: it can): sbatch and the daemons installed, and root. */
export function slurmMissing(): string | null {
  for (const bin of ['sbatch', 'slurmctld', 'slurmd', 'munged']) {
    try {
      execFileSync('bash', ['-c', `command -v ${bin} || test -x /usr/sbin/${bin}`], { stdio: 'ignore' });
    } catch {
      return `${bin} not found: apt-get install -y slurm-wlm munge (scripts/setup.sh does)`;
    }
  }
  if (process.getuid?.() !== 0) return 'not root: the throwaway slurmd runs jobs as root (CI runs as root)';
  return null;
}

export interface SlurmCluster {
  dir: string;
  env: NodeJS.ProcessEnv;
  /** A Slurm client command with this cluster's config; its stdout. */
  cli(cmd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<string>;
  /** Each task of array job `id`: task id → JobState (scontrol show job, one line per task). */
  states(id: string): Promise<Map<number, string>>;
  stop(): Promise<void>;
}

/** The slurm.conf, with @DIR@, @HOST@, @CTLD_PORT@ and @SLURMD_PORT@ to fill. */
export const CONF_TEMPLATE = path.resolve(__dirname, '..', '..', 'examples', 'slurm', 'one-node-test.conf');

const sbin = (b: string) => (fs.existsSync(`/usr/sbin/${b}`) ? `/usr/sbin/${b}` : b);

async function freePorts(n: number): Promise<number[]> {
  const net = await import('node:net');
  const ports: number[] = [];
  const servers = [];
  for (let i = 0; i < n; i++) {
    const s = net.createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
    ports.push((s.address() as { port: number }).port);
    servers.push(s);
  }
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

export async function startSlurm(): Promise<SlurmCluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fpsweep-slurm-'));
  for (const d of ['munge', 'state', 'spool', 'log']) fs.mkdirSync(path.join(dir, d), { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o755);
  fs.chmodSync(path.join(dir, 'munge'), 0o711);
  const key = path.join(dir, 'munge', 'munge.key');
  fs.writeFileSync(key, randomBytes(1024), { mode: 0o400 });
  const sock = path.join(dir, 'munge', 'munge.sock');
  execFileSync(sbin('munged'), [
    '--force',
    `--key-file=${key}`,
    `--socket=${sock}`,
    `--pid-file=${path.join(dir, 'munge', 'munged.pid')}`,
    `--log-file=${path.join(dir, 'munge', 'munged.log')}`,
    `--seed-file=${path.join(dir, 'munge', 'seed')}`,
  ]);
  const host = os.hostname().split('.')[0];
  const [ctld, slurmd] = await freePorts(2);
  const conf = path.join(dir, 'slurm.conf');
  // The shipped one-node config (docs/CLUSTER.md quotes it), its placeholders filled.
  const filled = fs
    .readFileSync(CONF_TEMPLATE, 'utf8')
    .replace(/@DIR@/g, dir)
    .replace(/@HOST@/g, host)
    .replace(/@CTLD_PORT@/g, String(ctld))
    .replace(/@SLURMD_PORT@/g, String(slurmd));
  if (/@\w+@/.test(filled)) throw new Error(`${CONF_TEMPLATE}: a placeholder left unfilled: ${/@\w+@/.exec(filled)![0]}`);
  fs.writeFileSync(conf, filled);
  const env = { ...process.env, SLURM_CONF: conf };
  execFileSync(sbin('slurmctld'), ['-c', '-f', conf], { env });
  execFileSync(sbin('slurmd'), ['-f', conf], { env });
  const cli = async (cmd: string, args: string[], extra: NodeJS.ProcessEnv = {}) => (await run(cmd, args, { env: { ...env, ...extra } })).stdout;
  await waitFor(
    async () => /\bidle\b/.test(await cli('sinfo', ['-h', '-o', '%T']).catch(() => '')),
    60_000,
    () => `the throwaway slurmd idle (logs in ${dir}/log)`,
    { pollMs: 500 },
  );
  const pidOf = (f: string) => Number(fs.readFileSync(path.join(dir, f), 'utf8').trim());
  return {
    dir,
    env,
    cli,
    async states(id) {
      const out = await cli('scontrol', ['show', 'job', '-o', id]).catch(() => '');
      const m = new Map<number, string>();
      for (const line of out.split('\n')) {
        const task = /ArrayTaskId=(\d+)/.exec(line);
        const state = /JobState=(\S+)/.exec(line);
        if (task && state) m.set(Number(task[1]), state[1]);
      }
      return m;
    },
    async stop() {
      for (const f of ['slurmd.pid', 'slurmctld.pid', 'munge/munged.pid']) {
        try {
          process.kill(pidOf(f), 'SIGTERM');
        } catch {
          /* not running */
        }
      }
      await waitFor(
        () =>
          ['slurmd.pid', 'slurmctld.pid', 'munge/munged.pid'].every((f) => {
            try {
              process.kill(pidOf(f), 0);
              return false;
            } catch {
              return true;
            }
          }),
        30_000,
        'the throwaway Slurm daemons gone',
      );
    },
  };
}
