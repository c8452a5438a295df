// The findings panel's CPU while a sweep runs (issue 24, defect B), not a test:
//   npm run build && npx tsx bench/findingsPanel.ts [--seconds 60] [--every 5] [--mode both|old|new]
// On a copy of the planted sample (sample --planted: 4 planted benchmarks, 7 conditions) a sweep runs on a
// stand-in vLLM in the background worker; for --seconds the script does what the findings panel does on each
// change event (every --every s while rows arrive), and prints the CPU seconds that cost:
//   old  spawn `fpsweep findings --json --flips` (dist/cli.js), parse it, count the frames sent in-host
//        (FramesSentTracker), build the view: the panel before issue 24
//   new  ask the one `fpsweep findings --json --flips --follow` child for the findings and the frames sent,
//        parse it, build the view (an "unchanged" answer keeps the last view): the panel now
// CPU = this process's own (parsing, building the view) + its reaped children's (/proc/self/stat cutime+cstime:
// the CLI runs), measured before the stand-in is stopped. The sweep's worker is not our child's waited child,
// so its CPU is not counted. The machine is shared: run twice.
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { copySamplePackage } from '../test/core/protocols/fp/sample/fixture';
import { startStandin } from '../test/core/protocols/fp/sweep/helpers';
import { startCli, type CliRun } from '../src/extension/cli';
import { findingsSchema } from '../src/core/protocols/fp/findings/types';
import { buildFindingsView } from '../src/core/protocols/fp/findings/charts/buildView';
import { FramesSentTracker } from '../src/core/protocols/fp/findings/charts/framesSent';
import { PackageLayout } from '../src/core/protocols/fp/package/layout';
import { requestStop, waitForWorkerExit } from '../src/core/runner/control';
import { z } from 'zod';

const REPO = path.resolve(__dirname, '..');
const DIST = path.join(REPO, 'dist');
const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const SECONDS = Number(arg('seconds', '60'));
const EVERY = Number(arg('every', '5'));
const MODE = arg('mode', 'both');

/** CPU seconds of this process and of its reaped children so far. */
function cpu(): { own: number; children: number } {
  const u = process.cpuUsage();
  // /proc/self/stat: fields after the ")" — utime stime cutime cstime are fields 14..17 (1-based).
  const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  const tick = Number(spawnSync('getconf', ['CLK_TCK']).stdout.toString().trim()) || 100;
  return { own: (u.user + u.system) / 1e6, children: (Number(f[13]) + Number(f[14])) / tick };
}

const followLine = z.union([
  z.object({ stamp: z.string(), unchanged: z.literal(true) }),
  z.object({ stamp: z.string(), findings: findingsSchema, framesSent: z.record(z.record(z.number())) }),
]);

async function oldFetch(root: string, frames: FramesSentTracker): Promise<void> {
  const [r, sent] = await Promise.all([
    startCli({ distDir: DIST, verb: 'findings', args: ['--json', '--flips', '--package', root], cwd: root }).done,
    frames.read(),
  ]);
  if (r.code !== 0) throw new Error(`findings: exit ${r.code}: ${r.stderr.slice(-300)}`);
  buildFindingsView(findingsSchema.parse(JSON.parse(r.stdout)), sent, root, new Date().toISOString());
}

function followChild(root: string): { ask(): Promise<void>; end(): Promise<void> } {
  let buf = '';
  const waiting: ((line: string) => void)[] = [];
  const run: CliRun = startCli({
    distDir: DIST,
    verb: 'findings',
    args: ['--json', '--flips', '--follow', '--package', root],
    cwd: root,
    input: true,
    onOutput: (t, s) => {
      if (s !== 'stdout') return;
      buf += t;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        waiting.shift()?.(line);
      }
    },
  });
  return {
    async ask() {
      const line = await new Promise<string>((resolve) => {
        waiting.push(resolve);
        run.child.stdin!.write('\n');
      });
      const a = followLine.parse(JSON.parse(line));
      if (!('unchanged' in a)) buildFindingsView(a.findings, a.framesSent, root, new Date().toISOString());
    },
    async end() {
      run.child.stdin!.end();
      await run.done;
    },
  };
}

async function measure(mode: 'old' | 'new'): Promise<void> {
  const { root } = await copySamplePackage({ planted: true });
  const layout = new PackageLayout(root);
  const standin = await startStandin({ env: { FPSWEEP_STANDIN_LATENCY: 'a=0.3,b=0.000001' } });
  try {
    const started = await startCli({ distDir: DIST, verb: 'run', args: ['--detach', '--package', root, '--endpoints', standin.url], cwd: root }).done;
    if (started.code !== 0) throw new Error(`run --detach: exit ${started.code}: ${started.stderr.slice(-500)}`);
    const rowsAt = () => readFileSync(layout.resultsCsv, 'utf8').split('\n').length;
    const rows0 = rowsAt();
    const before = cpu();
    const frames = new FramesSentTracker(layout.resultsCsv);
    const child = mode === 'new' ? followChild(root) : undefined;
    let fetches = 0;
    const end = Date.now() + SECONDS * 1000;
    while (Date.now() < end) {
      const tick = Date.now();
      if (child) await child.ask();
      else await oldFetch(root, frames);
      fetches++;
      await new Promise((r) => setTimeout(r, Math.max(0, tick + EVERY * 1000 - Date.now())));
    }
    await child?.end();
    const after = cpu();
    const own = after.own - before.own;
    const children = after.children - before.children;
    console.log(
      `${mode}: ${fetches} fetches in ${SECONDS} s while the sweep wrote ${rowsAt() - rows0} rows: ` +
        `CPU ${(own + children).toFixed(2)} s (host ${own.toFixed(2)} s + CLI ${children.toFixed(2)} s), ${((own + children) / fetches).toFixed(3)} s a fetch`,
    );
  } finally {
    await requestStop(layout);
    await waitForWorkerExit(layout, 120_000).catch(() => undefined);
    await standin.stop();
  }
}

(async () => {
  if (MODE === 'both' || MODE === 'old') await measure('old');
  if (MODE === 'both' || MODE === 'new') await measure('new');
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
